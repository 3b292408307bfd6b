/**
 * The SDK as an integrator installs it: `npm pack` in sdk/ (its prepack builds dist/), the
 * tarball's contents and size, then an offline install into a fresh project outside the
 * repository, where a strict TypeScript consumer (module NodeNext) type-checks and runs against
 * the local stack from ESM (the README's first lines, sdk/examples/quickstart.ts, importing
 * '@timebill/sdk') and from CommonJS. Only the compiler comes from the repository.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, workspace } from '../support/api.ts';
import { TSC } from '../support/typecheck.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
/**
 * docs/decisions/0020-sdk-package.md: the declarations generated from the document are most of it, and grow with it.
 * 200 KB with invoices; 240 KB with payments (the package was 208 KB: 163 KB of it the generated declarations);
 * 246 KB with the invoice's PDF (issue 56: 245,139 bytes before it; its operation's declarations
 * took the package to 249,200, `invoices.retrievePdf` and its README lines to 251,059).
 */
const MAX_UNPACKED_BYTES = 246 * 1024;

interface Packed {
  filename: string;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

let project: string;
let packed: Packed;
/** npm without the calling npm's settings (`npm test` passes its prefix and cache down) or a network: what a fresh machine with the tarball has. */
const npmEnv = () => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_'))),
  npm_config_cache: join(project, '.npm-cache'),
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
});

/** The CommonJS consumer: the package's surface, typed and against the local stack; prints what the test asserts. */
const COMMONJS_CONSUMER = `import { Timebill, TimebillError, etagOf, verifyWebhook, type BodyOf, type Client, type Payment } from '@timebill/sdk';

async function main(): Promise<void> {
  const tb = new Timebill(process.env.TOKEN!, { baseUrl: process.env.API! });
  const body: BodyOf<'createClient'> = { company_name: 'Initech', company_email: 'ap@initech.test' };
  // @ts-expect-error company_email is required (this line compiles only if the package's types are lost)
  const untyped = () => tb.clients.create({ company_name: 'Initech' });
  void untyped;
  // An invoice's payments, typed (compiled, not run).
  const paymentsOf = (invoiceId: string): Promise<Payment[]> => tb.invoices.payments.list(invoiceId, { limit: 10 }).toArray();
  void paymentsOf;
  const client: Client = await tb.clients.create(body);
  const retrieved = await tb.clients.retrieve(client.id);
  const listed: string[] = [];
  for await (const c of tb.clients.list({ limit: 1 })) listed.push(c.id);
  const missing = await tb.projects.retrieve('prj_01ARZ3NDEKTSV4RRFFQ69G5FAV').catch((e: unknown) => e);
  const document = await tb.openapi.retrieve();
  const esm = await import('@timebill/sdk');
  console.log(JSON.stringify({
    resolved: require.resolve('@timebill/sdk'),
    client: client.id,
    retrieved: retrieved.id,
    etag: etagOf(retrieved),
    listed,
    missing: missing instanceof TimebillError ? [missing.status, missing.type] : String(missing),
    openapi: document.openapi,
    verifyWebhook: typeof verifyWebhook,
    oneImplementation: esm.TimebillError === TimebillError && esm.etagOf(retrieved) === etagOf(retrieved),
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2023'],
    types: ['node'],
    typeRoots: [resolve(root, 'node_modules/@types')],
    // The declarations' own consistency is the build's check (sdk/scripts/build.ts); the
    // consumer's expected error fails this compile if they resolve to nothing.
    skipLibCheck: true,
  },
  files: ['quickstart.mts', 'consumer.cts'],
};

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'timebill-sdk-consumer-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: resolve(root, 'sdk'), env: npmEnv() });
  [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as [Packed];
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'timebill-sdk-consumer', private: true }, null, 2)}\n`);
  await run('npm', ['install', '--offline', join(project, packed.filename)], { cwd: project, env: npmEnv() });
  const quickstart = readFileSync(resolve(root, 'sdk/examples/quickstart.ts'), 'utf8').replace("'../src/index.ts'", "'@timebill/sdk'");
  writeFileSync(join(project, 'quickstart.mts'), quickstart);
  writeFileSync(join(project, 'consumer.cts'), COMMONJS_CONSUMER);
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the SDK package (npm pack in sdk/)', () => {
  it('holds the compiled JavaScript, its declarations, the README and the licence: no sources, no tests, under 246 KB unpacked', () => {
    const paths = packed.files.map((f) => f.path).sort();
    expect(paths.filter((p) => !/^(package\.json|README\.md|LICENSE|dist\/(cjs|esm)\/[\w-]+\.(js|d\.ts|json))$/.test(p))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/esm/index.js', 'dist/esm/index.d.ts']));
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules/@timebill/sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@timebill/sdk', license: 'MIT', engines: { node: '>=20' } });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(packed.unpackedSize).toBe(packed.files.reduce((sum, f) => sum + f.size, 0));
    expect(packed.unpackedSize).toBeLessThan(MAX_UNPACKED_BYTES);
  });

  it('type-checks a strict consumer (module NodeNext) from ESM and CommonJS, installed offline outside the repository', async () => {
    // The repository's compiler (TypeScript 7, as `npm test`'s type check): 0.4 core-seconds here, 2.7 with 5.9's tsc.
    const result = await run(process.execPath, [TSC, '-p', project], { cwd: project }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result).toEqual({ code: 0, stdout: '' });
  });

  it('runs the README\'s first lines from ESM against the local stack', async () => {
    const { token } = await workspace('sdk-package-esm');
    const { stdout, stderr } = await run(process.execPath, ['quickstart.mjs'], { cwd: project, env: { ...process.env, TOKEN: token, API: `${baseUrl()}/api/v1` } });
    expect(stdout.trim().split('\n')).toEqual([expect.stringMatching(/^cli_\w+ Globex$/), 'USD 90 180.00', expect.stringMatching(/^412 precondition_failed \S+$/)]);
    expect(stderr).toBe('');
  });

  it('runs from CommonJS against the local stack, the same implementation as its ESM entry', async () => {
    const { token } = await workspace('sdk-package-cjs');
    const { stdout, stderr } = await run(process.execPath, ['consumer.cjs'], { cwd: project, env: { ...process.env, TOKEN: token, API: `${baseUrl()}/api/v1` } });
    const result = JSON.parse(stdout);
    expect(result).toEqual({
      resolved: join(project, 'node_modules/@timebill/sdk/dist/cjs/index.js'),
      client: expect.stringMatching(/^cli_\w+$/),
      retrieved: result.client,
      etag: expect.stringMatching(/^"\d+"$/),
      listed: [result.client],
      missing: [404, 'not_found'],
      openapi: '3.1.0',
      verifyWebhook: 'function',
      oneImplementation: true,
    });
    expect(stderr).toBe('');
  });
});
