/**
 * The docs stay true: every count they state is compared with the code it counts, every path
 * they name exists, the README's layout names every script and folder, and docs/benchmarks.md
 * is exactly what the bench's report renders from docs/benchmarks.json (results and verdicts
 * only, each section number once).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDeployCosts, renderMarkdown, standings } from '../bench/report.ts';
import type { BenchResults, Target } from '../bench/results.ts';
import { soakSectionOf, withSoakSection } from '../soak/report.ts';
import { EVENT_TYPES } from '../../shared/model/event-types.ts';
import { MAX_WEBHOOK_ENDPOINTS } from '../../shared/domain/webhook-endpoints.ts';
import { TABLE } from '../../shared/data/table.ts';
import { project } from '../../shared/model/resources.ts';
import { LIMITS } from '../../shared/core/field-limits.ts';
import { INVALID_TOKEN_PLAN, PLAN_NAMES, QUOTA_RETRY_AFTER_SECONDS, THROTTLE_RETRY_AFTER_SECONDS, USAGE_PLANS } from '../../shared/core/plan-limits.ts';
import { STAGE_THROTTLING } from '../../infra/names.ts';
import { WAF_RATE_LIMIT_PER_IP } from '../../infra/limits.ts';

const repoRoot = resolve(import.meta.dirname, '../..');
const doc = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
/** The number a doc writes as a word or in digits. */
const numberOf = (text: string) => (/^\d+$/.test(text) ? Number(text) : WORDS.indexOf(text.toLowerCase()));
/** The one match of `pattern` in `text`, its first group read as a number. */
function stated(text: string, pattern: RegExp): number {
  const matches = [...text.matchAll(new RegExp(pattern, 'g'))];
  expect(matches, String(pattern)).toHaveLength(1);
  return numberOf(matches[0]![1]!);
}

describe('counts in the docs', () => {
  it('events.md: the event types and the endpoints a workspace may have', () => {
    const events = doc('docs/events.md');
    expect(stated(events, /At most (\d+) endpoints per workspace/)).toBe(MAX_WEBHOOK_ENDPOINTS);
    const types = /- Types: ((?:`[a-z_.]+`,?\s*)+)/.exec(events)?.[1];
    expect([...(types ?? '').matchAll(/`([a-z_.]+)`/g)].map((m) => m[1])).toEqual([...EVENT_TYPES]);
  });

  it('data-model.md: the table\'s GSIs, and those a project item writes', () => {
    const model = doc('docs/data-model.md');
    const header = model.split('\n').find((line) => line.startsWith('| item | PK | SK |'))!;
    expect(header.match(/GSI\dPK/g)).toHaveLength(TABLE.indexes.length);
    expect(stated(model, /(\d+) projected attributes in all/)).toBe(TABLE.indexes.reduce((n, i) => n + i.projected.length, 0));
    const projectGsis = [...model.matchAll(/(\w+) project \|[^\n]*?Put 2 \+ (\d+) GSIs/g)].map((m) => Number(m[2]));
    expect(projectGsis).toEqual([Object.keys(project.indexes ?? {}).length]);
  });

  it('extending.md: the steps of adding a resource', () => {
    const section = doc('docs/extending.md').split('\n## ')[1]!;
    const steps = section.split('\n').filter((line) => /^\d+\. /.test(line)).length;
    expect(stated(section, /(\w+) steps; everything else follows/)).toBe(steps);
  });
});

describe('limits in the docs', () => {
  const api = doc('docs/api.md');
  const n = (text: string) => Number(text.replaceAll(',', ''));
  /** The cells of the table row whose first cell is `first`. */
  const row = (first: string) => {
    const line = api.split('\n').find((l) => l.startsWith(`| ${first} |`));
    expect(line, first).toBeDefined();
    return line!.split('|').slice(2, -1).map((cell) => cell.trim());
  };

  it('api.md and the README state each plan as shared/core/plan-limits.ts holds it', () => {
    const readme = doc('README.md');
    for (const plan of PLAN_NAMES) {
      const { rateLimit, burstLimit, monthlyQuota } = USAGE_PLANS[plan];
      expect(row(`\`${plan}\``).map(n), plan).toEqual([rateLimit, burstLimit, monthlyQuota]);
      expect(readme, plan).toContain(`\`${plan}\` ${rateLimit} requests/s (bursts of ${burstLimit}, ${monthlyQuota.toLocaleString('en-US')} a`);
    }
    expect(api).toContain(`the whole stage (${STAGE_THROTTLING.rateLimit} requests/s, burst ${STAGE_THROTTLING.burstLimit}, all clients together) | 429 \`rate_limited\` | \`${THROTTLE_RETRY_AFTER_SECONDS}\``);
    expect(api).toContain(`one small bucket (${INVALID_TOKEN_PLAN.rateLimit} requests/s, burst ${INVALID_TOKEN_PLAN.burstLimit})`);
    expect(api).toContain(`(${WAF_RATE_LIMIT_PER_IP.toLocaleString('en-US')} requests in any 5 minutes)`);
    expect(row('the client\'s monthly quota').at(-1)).toBe(`\`${QUOTA_RETRY_AFTER_SECONDS}\``);
  });

  it('api.md\'s field limits are those of shared/core/field-limits.ts', () => {
    expect(row('`company_name`, `name`')[0]).toBe(`1–${LIMITS.nameLength} characters, at least one visible`);
    expect(row('`company_email`')[0]).toContain(`at most ${LIMITS.emailLength} characters`);
    expect(row('`company_address`')[0]).toContain(`1–${LIMITS.addressLength.toLocaleString('en-US')} characters`);
    expect(row('`website`')[0]).toContain(`at most ${LIMITS.urlLength.toLocaleString('en-US')} characters`);
    expect(row('`business_number`, `tps_number`, `tvq_number`')[0]).toContain(`at most ${LIMITS.taxIdLength} characters`);
    expect(row('`description`')[0]).toContain(`1–${LIMITS.descriptionLength.toLocaleString('en-US')} characters`);
    expect(row('`hourly_rate`, `fixed_price`, `amount`, `billable_rate`')[0]).toContain(`from 0 to ${LIMITS.money.toLocaleString('en-US')} with at most ${LIMITS.moneyDecimals} decimal places`);
    expect(row('`interval_count`')[0]).toBe(`integer from 1 to ${LIMITS.intervalCount.toLocaleString('en-US')}`);
    expect(row('`duration_minutes` (time entries)')[0]).toContain(`integer from 1 to ${LIMITS.durationMinutes.toLocaleString('en-US')}`);
    expect(row('`client_id`, `project_id`')[0]).toBe(`at most ${LIMITS.idLength} characters`);
    expect(row('`search`')[0]).toContain(`1–${LIMITS.searchLength} characters`);
    expect(row('`cursor`')[0]).toContain(`1–${LIMITS.cursorLength.toLocaleString('en-US')} characters`);
    expect(row('`url` (webhook endpoints)')[0]).toContain(`at most ${LIMITS.urlLength.toLocaleString('en-US')} characters`);
    expect(row('`limit`')[0]).toContain(`integer 1–${LIMITS.pageSizeMax}, default ${LIMITS.pageSizeDefault}`);
    expect(api).toContain(`At most **${LIMITS.bodyBytes / 1024} KiB**`);
    expect(api).toContain(`the year must be from ${LIMITS.yearMin} to ${LIMITS.yearMax}`);
  });

  it('api.md\'s invoice limits are those of shared/core/field-limits.ts and shared/domain/invoices/', () => {
    const invoices = api.slice(api.indexOf('## Invoices'), api.indexOf('## Limits'));
    const grouped = (n: number) => n.toLocaleString('en-US');
    expect(invoices).toContain(`more than ${grouped(LIMITS.invoiceEntries)} entries or ${LIMITS.invoiceLines} lines, 400 \`param: "to"\``);
    expect(row('`project_ids`')[0]).toContain(`1–${LIMITS.invoiceProjects} distinct ids`);
    expect(row('`discount_rate`, `tax_rate`, `taxes[i].rate`')[0]).toContain(`from 0 to ${LIMITS.percent} with at most ${LIMITS.percentDecimals} decimal places`);
    expect(row('`taxes`')[0]).toContain(`0 to ${LIMITS.invoiceTaxes} objects \`{name, rate}\`, names of 1 to ${LIMITS.taxNameLength} characters`);
    expect(row('`memo`')[0]).toContain(`at most ${grouped(LIMITS.memoLength)} characters`);
    expect(row('`purchase_order`')[0]).toContain(`at most ${LIMITS.purchaseOrderLength} characters`);
    // The domain keeps these two to itself (not exported): read from its source.
    const lease = Number(/INVOICE_WORK_LEASE_MS \?\? ([\d_]+)\)/.exec(doc('shared/domain/invoices/common.ts'))?.[1]?.replaceAll('_', ''));
    expect(stated(invoices, /lease of (\d+) s\b/)).toBe(lease / 1000);
    const dueDays = Number(/const DUE_DAYS = (\d+);/.exec(doc('shared/domain/invoices/lifecycle.ts'))?.[1]);
    expect(stated(invoices, /`due_date` defaults to (\d+) days after it/)).toBe(dueDays);
  });
});

describe('paths in the docs', () => {
  const docs = ['README.md', ...readdirSync(join(repoRoot, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  /** A file of the repository, backticked or bare, from the root or from a doc (`../`); not the tail of a longer path. */
  const PATH = /(?<![\w./-])(?:\.\.\/)*((?:shared|functions|infra|scripts|test|sdk)\/[\w./<>*-]+\.(?:ts|mjs|json|md))(?![\w-])/g;
  /** docs/extending.md's example resource, which is not written. */
  const EXAMPLES = ['functions/expenses/create.ts'];

  it('every file of shared/, functions/, infra/, scripts/, test/ and sdk/ that README.md and docs/ name exists', () => {
    expect(docs.length).toBeGreaterThan(30);
    const named = docs.flatMap((file) => [...doc(file).matchAll(PATH)].map((m) => ({ file, path: m[1]! })));
    expect(named.length).toBeGreaterThan(150);
    // A placeholder (`<kind>`) or a glob (`*`) names no one file.
    const missing = named.filter(({ path }) => !/[<*]/.test(path) && !EXAMPLES.includes(path) && !existsSync(join(repoRoot, path)));
    expect(missing.map(({ file, path }) => `${file}: ${path}`), 'paths the docs name that do not exist').toEqual([]);
  });
});

describe('the README\'s layout', () => {
  const readme = doc('README.md');
  const layout = readme.slice(readme.indexOf('## Layout'));

  it('names every npm script of scripts/ and test/, and every test folder', () => {
    const scripts = Object.entries((JSON.parse(doc('package.json')) as { scripts: Record<string, string> }).scripts)
      .filter(([, command]) => /\b(scripts|test)\//.test(command) || command.startsWith('stryker'))
      .map(([name]) => name);
    expect(scripts.length).toBeGreaterThan(10);
    const named = (name: string) => layout.includes(`npm run ${name}`) || layout.includes(`/ \`${name.split(':')[1]}\``) || layout.includes(`\`${name}\``);
    expect(scripts.filter((name) => !named(name))).toEqual([]);
    const testFolders = readdirSync(join(repoRoot, 'test')).filter((f) => statSync(join(repoRoot, 'test', f)).isDirectory());
    expect(testFolders.filter((f) => !layout.includes(`\`${f}/\``))).toEqual([]);
  });

  it('names every top-level folder (docs/ in its Documentation list)', () => {
    // The repository's folders, not what commands leave beside them (cdk.out/ of a synth, reports/ of a mutation run: ignored).
    const tracked = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n');
    const folders = [...new Set(tracked.filter((f) => f.includes('/')).map((f) => f.slice(0, f.indexOf('/'))))].filter((f) => !f.startsWith('.'));
    expect(folders.length).toBeGreaterThan(5);
    expect(folders.filter((f) => !readme.includes(`\`${f}/\``) && !readme.includes(`](${f}/`))).toEqual([]);
  });
});

describe('docs/benchmarks.md', () => {
  const markdown = doc('docs/benchmarks.md');
  const results = JSON.parse(doc('docs/benchmarks.json')) as BenchResults;

  it('is what the report renders from docs/benchmarks.json (npm run bench -- --render)', () => {
    expect(markdown).toBe(withSoakSection(renderMarkdown(results), soakSectionOf(markdown)));
  });

  it('docs/deploy.md\'s costs are what the report renders from docs/benchmarks.json (npm run bench -- --render)', () => {
    expect(doc('docs/deploy.md')).toContain(renderDeployCosts(results));
    expect(renderDeployCosts(results)).toMatch(/Whole bill at 100 M requests a month: \$\d+\.\d+ per million/);
  });

  it('data-model.md\'s measured units of an invoice\'s create and void of 2,000 entries are section 10\'s', () => {
    const perEntry = (label: string) => {
      const run = results.invoices!.operations.find((o) => o.label === label && o.entries === 2000)!;
      return [run.writeUnits, run.readUnits].map((units) => (units / run.entries).toFixed(2));
    };
    const [createWrite, createRead] = perEntry('create');
    const [voidWrite, voidRead] = perEntry('void');
    const model = doc('docs/data-model.md');
    expect(model).toContain(`measured: ${createWrite} WCU and ${createRead} RCU per entry at 2,000 entries`);
    expect(model).toContain(`measured: a void of 2,000 entries ${voidWrite} WCU and ${voidRead} RCU per entry`);
  });

  it('decision 0027 prices the other design from section 4\'s list page and the whole bill docs/deploy.md states', () => {
    const decision = doc('docs/decisions/0027-one-index-sort-key.md');
    const page = results.units.find((u) => u.key === 'listTimeEntries')!.measured.read;
    const whole = Number(/Whole bill at 100 M requests a month: \$(\d+\.\d+) per million/.exec(renderDeployCosts(results))![1]);
    expect(decision).toContain(`| a page of 25 time entries | ${page} RCU, one Query (section 4) |`);
    const other = whole + 0.28;
    expect(decision).toContain(`| the whole bill at 100 M requests a month | $${whole.toFixed(2)} per million | ≈ $${other.toFixed(2)}: ${other > 8 ? 'over' : 'under'} decision 0024's $8.00 |`);
  });

  it('numbers its sections 1, 2, 3… once each, and keeps the method out (test/bench/README.md)', () => {
    const numbers = [...markdown.matchAll(/^## (\d+)\./gm)].map((m) => Number(m[1]));
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(numbers.length).toBeGreaterThanOrEqual(9);
    expect(markdown).not.toContain('## Running it');
    expect(markdown).toContain('](../test/bench/README.md)');
  });
});

describe('bench verdicts against the committed results', () => {
  const target = (id: string, met: boolean): Target => ({ id, target: id, met, result: '' });

  it('a miss that was a miss is known; one that was met is a regression; one never run is new', () => {
    const committed = [target('a', false), target('b', true), target('c', true)];
    const now = [target('a', false), target('b', false), target('c', true), target('d', false)];
    expect(standings(now, committed).map((s) => [s.target.id, s.standing])).toEqual([
      ['a', 'known miss'],
      ['b', 'regression'],
      ['c', 'met'],
      ['d', 'new miss'],
    ]);
  });

  it('the committed results\' own misses are all known misses', () => {
    const committed = (JSON.parse(doc('docs/benchmarks.json')) as BenchResults).targets;
    const ranked = standings(committed, committed);
    expect(ranked.filter((s) => s.standing === 'regression' || s.standing === 'new miss')).toEqual([]);
    expect(ranked.filter((s) => s.standing === 'known miss').map((s) => s.target.id)).toEqual(committed.filter((t) => !t.met).map((t) => t.id));
  });
});
