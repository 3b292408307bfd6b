/**
 * The soak's result, and its section of docs/benchmarks.md: kept between markers so that
 * `npm run bench`, which writes the rest of that file, keeps the last soak run.
 */
export interface SoakResult {
  date: string;
  command: string;
  machine: string;
  durationSeconds: number;
  apiClients: number;
  targetRate: number;
  requests: number;
  byStatus: Record<string, number>;
  perMinute: { minute: number; requests: number; p50: number; p99: number }[];
  rss: { startMiB: number; endMiB: number; growthMiB: number };
  invariants: { workspaces: number; clients: number; projects: number; timeEntries: number; violations: string[] };
  note?: string;
}

export const RSS_GROWTH_TARGET_MIB = 50;

/** What the soak must hold: no error but 429, RSS growth under the target, the data consistent. */
export function soakVerdict(r: SoakResult): { met: boolean; reasons: string[] } {
  const reasons: string[] = [];
  const errors = Object.entries(r.byStatus).filter(([status]) => !/^2\d\d$/.test(status) && status !== '429');
  if (errors.length > 0) reasons.push(`errors other than 429: ${errors.map(([s, n]) => `${n} x ${s}`).join(', ')}`);
  if (r.rss.growthMiB >= RSS_GROWTH_TARGET_MIB) reasons.push(`RSS grew ${r.rss.growthMiB} MiB (target: under ${RSS_GROWTH_TARGET_MIB})`);
  if (r.invariants.violations.length > 0) reasons.push(`${r.invariants.violations.length} invariant violations`);
  return { met: reasons.length === 0, reasons };
}

const BEGIN = '<!-- soak:begin (written by npm run soak -- --write) -->';
const END = '<!-- soak:end -->';

export function renderSoakSection(r: SoakResult): string {
  const verdict = soakVerdict(r);
  const statuses = Object.entries(r.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `| ${status} | ${n} |`)
    .join('\n');
  const minutes = r.perMinute.map((m) => `| ${m.minute + 1} | ${m.requests} | ${m.p50} ms | ${m.p99} ms |`).join('\n');
  return `${BEGIN}
## 9. Soak

\`npm run soak\` (method: test/bench/README.md): ${r.apiClients} API clients at the stage's rate limit (${r.targetRate} req/s), then an invariant check of their data.
Target: no error other than 429, and RSS growth of the gateway process under ${RSS_GROWTH_TARGET_MIB} MiB.

- **Machine**: ${r.machine}
- **Date**: ${r.date}
- **Command**: \`${r.command}\` (${r.durationSeconds} s of load, ${r.requests} requests: ${Math.round(r.requests / r.durationSeconds)} req/s achieved)${r.note ? `\n- **Note**: ${r.note}` : ''}

| status | requests |
|---|---:|
${statuses}

| minute | requests | p50 | p99 |
|---:|---:|---:|---:|
${minutes}

| gateway RSS at start | at end | growth |
|---:|---:|---:|
| ${r.rss.startMiB} MiB | ${r.rss.endMiB} MiB | ${r.rss.growthMiB} MiB |

Invariants: ${r.invariants.workspaces} workspaces, ${r.invariants.clients} clients, ${r.invariants.projects} projects, ${r.invariants.timeEntries} time entries; ${
    r.invariants.violations.length === 0 ? 'every counter equals its children, no orphans' : `**${r.invariants.violations.length} violations**: ${r.invariants.violations.slice(0, 5).join('; ')}`
  }.

${verdict.met ? '**Met**' : `**Missed**: ${verdict.reasons.join('; ')}`}.
${END}`;
}

/** The soak section of an existing benchmarks.md, if it has one. */
export function soakSectionOf(markdown: string): string | undefined {
  const begin = markdown.indexOf(BEGIN);
  const end = markdown.indexOf(END);
  return begin >= 0 && end > begin ? markdown.slice(begin, end + END.length) : undefined;
}

/** `markdown` with its soak section replaced by `section` (appended when it has none). */
export function withSoakSection(markdown: string, section: string | undefined): string {
  if (section === undefined) return markdown;
  const existing = soakSectionOf(markdown);
  if (existing) return markdown.replace(existing, section);
  // After section 8, before section 10 and the notes on mutation testing (which are not the bench's).
  const after = ['\n## 10. ', '\n## Mutation testing'].map((heading) => markdown.indexOf(heading)).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? -1;
  return after >= 0 ? `${markdown.slice(0, after)}\n${section}\n${markdown.slice(after)}` : `${markdown.trimEnd()}\n\n${section}\n`;
}
