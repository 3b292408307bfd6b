/**
 * One floor per layer (docs/decisions/0028-one-floor-per-layer.md): every import of shared/,
 * functions/, infra/ and scripts/ read with TypeScript's own pre-processor (static, type-only,
 * re-exports and `import()`), and held against the floors. A folder of shared/ imports only
 * folders on lower floors, so folders on one floor never import each other and no two folders
 * import each other in a circle. And only data/ builds DynamoDB's commands (issue 52): the floors
 * above ask it for reads and writes by what they do.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** shared/'s folders by floor, the ground first. A new folder is placed here, and in the decision. */
const FLOORS: Record<string, number> = {
  core: 1,
  data: 2,
  model: 3,
  api: 4,
  events: 4,
  totals: 4,
  document: 4,
  domain: 5,
  http: 6,
  auth: 6,
  webhooks: 6,
  billing: 6,
};

/** What each top-level folder may import, besides itself. */
const TOP_LEVEL: Record<string, readonly string[]> = {
  shared: [],
  functions: ['shared', 'docs'],
  infra: ['shared'],
  scripts: ['shared', 'infra', 'sdk'],
};

const root = path.resolve(import.meta.dirname, '../..');
const sourcesOf = (top: string): string[] =>
  readdirSync(path.join(root, top), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|mts|mjs)$/.test(file))
    .map((file) => `${top}/${file.split(path.sep).join('/')}`);

interface Import {
  from: string;
  to: string;
}

/** Every relative import of the four folders, as repository paths. */
const imports: Import[] = Object.keys(TOP_LEVEL).flatMap(sourcesOf).flatMap((from) =>
  ts
    .preProcessFile(readFileSync(path.join(root, from), 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => ({ from, to: path.posix.normalize(path.posix.join(path.posix.dirname(from), name)) })),
);

const folderOf = (file: string) => file.split('/')[1]!;

const sharedImports = imports.filter(({ from, to }) => from.startsWith('shared/') && to.startsWith('shared/') && folderOf(from) !== folderOf(to));
const show = ({ from, to }: Import) => `${from} -> ${to}`;

/** What builds and sends DynamoDB's commands: the AWS SDK's DynamoDB packages, and the table's client. */
const DYNAMODB_PACKAGE = /^@aws-sdk\/(client-dynamodb|lib-dynamodb|util-dynamodb)$/;
const DYNAMODB_CLIENT = 'shared/data/dynamo.ts';
/** Every import of shared/ that reaches DynamoDB itself (relative ones as repository paths). */
const dynamoDbImports: Import[] = sourcesOf('shared').flatMap((from) =>
  ts
    .preProcessFile(readFileSync(path.join(root, from), 'utf8'), true, true)
    .importedFiles.map(({ fileName }) => (fileName.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(from), fileName)) : fileName))
    .filter((to) => DYNAMODB_PACKAGE.test(to) || to === DYNAMODB_CLIENT)
    .map((to) => ({ from, to })),
);

describe('one floor per layer', () => {
  it('reads the imports (a parser that found none would pass every rule)', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(sharedImports.length).toBeGreaterThan(150);
    expect(imports.every(({ to }) => statSync(path.join(root, to), { throwIfNoEntry: false })?.isFile())).toBe(true);
  });

  it('places every folder of shared/ on a floor, and no file at its root', () => {
    const entries = readdirSync(path.join(root, 'shared'), { withFileTypes: true });
    expect(entries.filter((e) => e.isFile()).map((e) => e.name)).toEqual([]);
    expect(entries.map((e) => e.name).sort()).toEqual(Object.keys(FLOORS).sort());
  });

  it('a folder of shared/ imports only folders on lower floors', () => {
    const upOrLevel = sharedImports.filter(({ from, to }) => FLOORS[folderOf(from)]! <= FLOORS[folderOf(to)]!);
    expect(upOrLevel.map(show)).toEqual([]);
  });

  it('shared/, functions/, infra/ and scripts/ import only what stands below them', () => {
    const outside = imports.filter(({ from, to }) => {
      const [a, b] = [from.split('/')[0]!, to.split('/')[0]!];
      return a !== b && !TOP_LEVEL[a]!.includes(b);
    });
    expect(outside.map(show)).toEqual([]);
  });

  it('only data/ builds DynamoDB commands: no other file of shared/ imports its client or the SDK\'s DynamoDB packages', () => {
    // The rule reads something: data/ itself imports both.
    expect(dynamoDbImports.filter(({ from }) => folderOf(from) === 'data').map(({ to }) => to)).toEqual(expect.arrayContaining([DYNAMODB_CLIENT, '@aws-sdk/lib-dynamodb']));
    expect(dynamoDbImports.filter(({ from }) => folderOf(from) !== 'data').map(show)).toEqual([]);
  });

  it('no file name stands twice in shared/', () => {
    const names = sourcesOf('shared').map((file) => path.posix.basename(file));
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it('the decision record states the floors the rule holds', () => {
    const decision = readFileSync(path.join(root, 'docs/decisions/0028-one-floor-per-layer.md'), 'utf8');
    for (const [folder, floor] of Object.entries(FLOORS)) expect(decision).toMatch(new RegExp(`\\| ${floor} \\|[^\\n]*\`${folder}/\``));
  });
});
