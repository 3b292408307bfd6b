/**
 * Bundle sizes, measured by scripts/bundle-sizes.ts with the stack's own esbuild options
 * (stack.test.ts proves the script's bundles are byte-identical to the deployed assets): the
 * command runs once per run, in the infra projects' global setup (support/bundles.ts), which
 * keeps its bundles, its output and its exit status.
 */
import * as path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling.ts';
import { BUNDLE_TARGETS, MAX_BUNDLE_BYTES, MAX_DOCUMENT_BUNDLE_BYTES, bundleLimitOf, type BundleSize } from '../../scripts/bundle-sizes.ts';
import { AUTHORIZER_ENTRY, ROUTES } from '../../shared/api/routes.ts';
import { BACKGROUND_FUNCTIONS } from '../../shared/api/background.ts';
import { SCHEMAS } from '../../shared/model/schemas.ts';
import { readBundles, type BundleCommand } from './support/bundles.ts';

let sizes: BundleSize[];
let command: BundleCommand;

beforeAll(() => {
  ({ sizes, command } = readBundles(inject('infraAssembly')));
});

describe('bundle sizes', () => {
  it('measures every function: each route, each function that is not a route, and the authorizer', () => {
    const background = BACKGROUND_FUNCTIONS.map((f) => f.entry as string);
    expect(BUNDLE_TARGETS.map((t) => t.entry).sort()).toEqual([...ROUTES.map((r) => r.entry as string), ...background, AUTHORIZER_ENTRY].sort());
    expect(sizes).toHaveLength(ROUTES.length + background.length + 1);
  });

  it(`no bundle is over ${MAX_BUNDLE_BYTES / 1024} KB minified, but a document's, under ${MAX_DOCUMENT_BUNDLE_BYTES / 1024} KB`, () => {
    expect([MAX_BUNDLE_BYTES, MAX_DOCUMENT_BUNDLE_BYTES]).toEqual([500 * 1024, 2048 * 1024]);
    const over = sizes.filter((s) => s.minifiedBytes > bundleLimitOf(s.name)).map((s) => `${s.name}: ${s.minifiedBytes} bytes`);
    expect(over).toEqual([]);
    // The PDF library is in the document's function alone (decision 0034).
    const withPdf = sizes.filter((s) => 'pdf-lib' in s.packages).map((s) => s.name);
    expect(withPdf).toEqual(['retrieveInvoiceDocument']);
    expect(bundleLimitOf('retrieveInvoice')).toBe(MAX_BUNDLE_BYTES);
  });

  it('reports gzipped sizes and what each bundle is made of', () => {
    for (const s of sizes) {
      expect(s.gzipBytes, s.name).toBeGreaterThan(0);
      expect(s.gzipBytes, s.name).toBeLessThan(s.minifiedBytes);
      const attributed = Object.values(s.packages).reduce((a, b) => a + b, 0);
      expect(attributed, s.name).toBeLessThanOrEqual(s.minifiedBytes);
      expect(attributed, `${s.name}: most bytes are attributed to an input`).toBeGreaterThan(s.minifiedBytes * 0.9);
      expect(s.packages['(project)'], s.name).toBeGreaterThan(0);
    }
  });

  it('the command prints one line per function and fails when a bundle exceeds --max-kb', () => {
    // The run of `npm run bundle-sizes -- --max-kb 1 --json <file>` that built the bundles above (support/bundles.ts).
    expect(command.maxKb).toBe(1);
    expect(command.status).toBe(1);
    const lines = command.stdout.trim().split('\n');
    for (const target of BUNDLE_TARGETS) expect(lines.some((l) => l.startsWith(`${target.name} `) && l.includes('OVER LIMIT'))).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^${BUNDLE_TARGETS.length} bundles, .* minified in total; limit 1\\.0 KB per bundle$`));
  });
});

/**
 * A resource's field schemas (valibot) are built by a pure call beside its declaration, kept only
 * by the functions that parse its fields: so adding a resource grows no other resource's
 * functions but by its plain declaration, and a retrieve or delete function carries no field
 * schema at all.
 */
describe('what a function carries of the resources', () => {
  /** Messages of the field builders of shared/model/fields.ts: present only where a builder is. */
  const BUILDER_MESSAGES = ['must contain at least one visible character', 'must be a valid email address', 'decimal places', 'RFC 3339 date-time'];
  /** A literal only each resource's field schemas hold (a time entry's schemas have none of their own). */
  const SCHEMA_MARKERS: Partial<Record<string, string>> = { client: 'ENGLISH', project: 'ON_HOLD', webhook_endpoint: 'enabled_events may hold only' };

  it('each resource\'s schemas are declared beside it, in the registry', async () => {
    const registry = (await import(path.join(PROJECT_ROOT, 'shared/model/resources.ts'))) as Record<string, unknown>;
    for (const [kind, schemas] of Object.entries(SCHEMAS)) expect(Object.values(registry), kind).toContain(schemas);
  });

  it('a retrieve or delete function holds no field schema; one that parses fields holds only its own resource\'s', () => {
    for (const route of ROUTES) {
      if (route.resource === null || !(route.resource in SCHEMAS)) continue;
      const size = sizes.find((s) => s.name === route.operation)!;
      const parsesFields = route.action !== 'retrieve' && route.action !== 'delete';
      // An invoice's writes and a billing run's start build their own bodies (shared/model/invoice-fields.ts, billing-run-fields.ts), none derived by define.ts.
      const derivesSchemas = parsesFields && ((route.resource !== 'invoice' && route.action !== 'start') || route.action === 'list');
      expect(size.inputs.includes('shared/model/define.ts'), route.operation).toBe(derivesSchemas);
      const text = Buffer.from(size.contents).toString('utf8');
      if (!parsesFields) for (const message of BUILDER_MESSAGES) expect(text.includes(message), `${route.operation}: ${message}`).toBe(false);
      for (const [kind, marker] of Object.entries(SCHEMA_MARKERS)) {
        expect(text.includes(marker!), `${route.operation} holds the ${kind} schemas`).toBe(parsesFields && kind === route.resource);
      }
    }
  });

  it('a function that parses fields holds its own action\'s schema alone (an update function neither the create rules nor the list query)', () => {
    // Markers of each action's schema builder (shared/model/define.ts).
    const LIST_QUERY = 'limit must be an integer from 1 to';
    const UPDATE_BODY = 'cannot be changed: ';
    for (const route of ROUTES) {
      // Invoices declare their bodies themselves (shared/model/invoice-fields.ts): the next test.
      if (route.resource === null || !(route.resource in SCHEMAS) || route.resource === 'invoice') continue;
      const text = Buffer.from(sizes.find((s) => s.name === route.operation)!.contents).toString('utf8');
      expect(text.includes(LIST_QUERY), `${route.operation} holds the list query`).toBe(route.action === 'list');
      expect(text.includes(UPDATE_BODY), `${route.operation} holds the update body`).toBe(route.action === 'update');
    }
  });

  it('an invoice function holds its own action\'s body alone, and only its list the object\'s field schemas', () => {
    // Markers of each body (shared/model/invoice-fields.ts), and of the object's fields (its `number`).
    const BODIES: Record<string, string> = {
      create: 'project_ids must name at least one project',
      finalize: "The invoice's date (default: today",
      pay: 'When it was paid (default: now): not after the request',
    };
    const OBJECT_FIELDS = 'Given at finalize: unique, gapless';
    for (const route of ROUTES.filter((r) => r.resource === 'invoice')) {
      const text = Buffer.from(sizes.find((s) => s.name === route.operation)!.contents).toString('utf8');
      for (const [action, marker] of Object.entries(BODIES)) expect(text.includes(marker), `${route.operation} holds the ${action} body`).toBe(route.action === action);
      expect(text.includes(OBJECT_FIELDS), `${route.operation} holds the invoice's field schemas`).toBe(route.action === 'list');
    }
  });

  it('a function holds only the key builders it calls (function code imports shared/data/keys.ts as a namespace)', () => {
    // Markers of three builders, each called by a few functions alone.
    const BUILDERS: Record<string, string[]> = {
      INVOICE_NUMBER: ['finalizeInvoice'],
      WEBHOOK_ENDPOINT_COUNT: ['createWebhookEndpoint', 'deleteWebhookEndpoint'],
      '#INVOICE_ENTRIES': ['createInvoice', 'deleteInvoice', 'voidInvoice'],
    };
    for (const route of ROUTES) {
      const text = Buffer.from(sizes.find((s) => s.name === route.operation)!.contents).toString('utf8');
      for (const [marker, callers] of Object.entries(BUILDERS)) expect(text.includes(marker), `${route.operation} holds ${marker}`).toBe(callers.includes(route.operation));
    }
  });

  it('a function reads only its own input: a list its query, a POST or PATCH a body, a retrieve or a delete neither; If-Match all writes but a create', () => {
    // Markers of the readers the list and write frames inject (shared/http/handler.ts), and of the
    // contracts table (shared/api/operations.ts: the list's), which a create's frame does without.
    const QUERY_READER = 'may be given only once';
    const BODY_READER = 'The request body is not valid JSON';
    const IF_MATCH_READER = 'If-Match must be * or a comma-separated list of ETags';
    const CONTRACTS_TABLE = 'returns:"list"';
    for (const route of ROUTES) {
      if (route.resource === null) continue;
      const text = Buffer.from(sizes.find((s) => s.name === route.operation)!.contents).toString('utf8');
      expect(text.includes(QUERY_READER), `${route.operation} reads a query`).toBe(route.action === 'list');
      expect(text.includes(BODY_READER), `${route.operation} reads a body`).toBe(route.action !== 'list' && route.action !== 'retrieve' && route.action !== 'document' && route.action !== 'delete');
      expect(text.includes(IF_MATCH_READER), `${route.operation} reads If-Match`).toBe(!['create', 'createMany', 'start', 'list', 'retrieve', 'document'].includes(route.action));
      if (route.action === 'create' || route.action === 'start') expect(text.includes(CONTRACTS_TABLE), `${route.operation} holds the contracts table`).toBe(false);
    }
  });

  it('a route\'s function holds no response schema', () => {
    for (const route of ROUTES) {
      const text = Buffer.from(sizes.find((s) => s.name === route.operation)!.contents).toString('utf8');
      // A marker of responseSchema (define.ts): documents and tests use it, never a handler.
      expect(/workspace_id:[\w$]+\(\)/.test(text), `${route.operation} holds a response schema`).toBe(false);
    }
  });
});
