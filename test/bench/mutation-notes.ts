/**
 * What docs/benchmarks.md says of mutation testing (`npm run mutation`, not part of `npm run
 * bench`): the surviving mutants that are equivalent to the code, each with why. Kept here so
 * that the report, which rewrites the whole file, keeps them.
 */
export const MUTATION_NOTES = `## Mutation testing

Not part of \`npm run bench\`: \`npm run mutation\` (method in test/bench/README.md). Scores of the last run
(2 min 53 s, before shared/schemas/ and shared/resources/ became shared/model/ and
shared/api/*-schemas.ts): shared/auth/ 95.2 %,
shared/data/cursor.ts 96.2 %, shared/core/ids.ts 100 %, shared/http/conditional.ts 91.2 %, shared/schemas/ 87.5 % (fields.ts 86.0 %,
parse.ts 95.7 %, objects.ts 84.6 %, events.ts 86.4 %), shared/data/keys.ts 90.3 %, shared/resources/ 99.0 % (declare.ts,
define.ts and schemas.ts 100 %, registry.ts 98.6 %).

Surviving mutants that are equivalent to the code (no input tells them apart):

| where | mutant | why it is equivalent |
|---|---|---|
| \`shared/model/fields.ts\` \`instantOf\` | \`mo < 1\`, \`mo > 12\`, \`d < 1\`, \`mi > 59\`, \`sec > 59\` (each dropped, or the \`\\|\\|\` chain turned into \`&&\`) | \`Date.parse\` returns NaN for those too; only \`d > daysInMonth\` (30 February) and \`h > 23\` (24:00) pass \`Date.parse\`, and those are tested |
| same | the offset check (\`+24:00\`, \`+23:60\`): dropped, inverted or its parts removed | \`Date.parse\` refuses offsets past 23:59 itself |
| same | the \`^\` or \`$\` of \`RFC3339\` removed | what the anchors keep out (\`x2026-…Z\`, \`…Zx\`) \`Date.parse\` refuses |
| same | \`s.toUpperCase()\` → \`s.toLowerCase()\` | V8's \`Date.parse\` reads \`t\` and \`z\` in either case |
| same | \`Number.isNaN(ms)\` → \`false\` | a NaN instant's year is NaN, which the year range check refuses |
| \`fields.ts\` \`isWebUrl\` | \`url.hostname.length > 0\` → \`true\` or \`>= 0\` | the WHATWG URL parser throws for an \`http:\` or \`https:\` URL without a host |
| same | the \`catch\` block emptied | it then returns undefined instead of false: both fail \`v.check\` |
| \`shared/model/parse.ts\` | \`{ abortEarly: false }\` → \`{}\` | valibot's default is not to abort early |
| \`parse.ts\` \`messageOf\` | \`issue.input === undefined\` → \`true\` in "is required" | the object-level issues left at that line are those of a missing key (an unknown key is answered the line before), whose input is always undefined |
| \`shared/data/cursor.ts\` | \`'utf8'\` → \`''\` in \`Buffer.from(position, 'utf8')\` | Buffer's default encoding is UTF-8 |
| \`shared/model/resources.ts\` | \`timestamp('relationship_start_date')\` → \`timestamp('')\` | a read-only field's input schema never parses anything: the server sets it and the response schema of a read-only field is the stored-timestamp pattern |
`;
