/**
 * Input rules found by a hostile caller: money DynamoDB can hold, RFC 3339 instants in years
 * 1900..9999, visible text counted in code points and free of what no one can see, URLs refused
 * rather than trimmed, webhook URLs whose address is special in any of its spellings, every
 * unknown field and parameter listed, and no body where none is taken. Each refusal is a 400 in
 * the contract's shape with nothing stored or changed.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { expectInvalid } from '../support/assertions.ts';
import { baseUrl, createClient, createProject, workspace, type ApiResponse } from '../support/api.ts';
import { assertDeclaredStatus } from '../support/declared-statuses.ts';

/** A request with a body on any method (fetch refuses a body on GET). */
function rawRequest(method: string, path: string, token: string, body: string): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${baseUrl()}/api/v1${path}`);
    const req = request(
      url,
      { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          assertDeclaredStatus(method, url.pathname, res.statusCode ?? 0);
          resolve({ status: res.statusCode ?? 0, headers, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('money', () => {
  it('refuses values DynamoDB cannot hold and more than 4 decimals, on create and PATCH, storing nothing', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id, { hourly_rate: 100 });
    for (const field of ['hourly_rate', 'fixed_price', 'amount']) {
      for (const value of [1e-131, 0.30000000000000004, 0.00001, 1_000_000_000.5]) {
        expectInvalid(await api.post('/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly', [field]: value }), [field]);
        expectInvalid(await api.patch(`/projects/${project.id}`, { [field]: value }), [field]);
      }
    }
    expect((await api.get('/projects')).body.data).toHaveLength(1);
    const unchanged = await api.get(`/projects/${project.id}`);
    expect(unchanged.body).toEqual(project);
  });

  it('accepts 0 to 1,000,000,000 with up to 4 decimals', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id, { hourly_rate: 12.5, fixed_price: 0.0001, amount: 1_000_000_000 });
    expect(project).toMatchObject({ hourly_rate: 12.5, fixed_price: 0.0001, amount: 1_000_000_000 });
    const patched = await api.patch(`/projects/${project.id}`, { hourly_rate: 999_999_999.9999, amount: 0 });
    expect(patched.body).toMatchObject({ hourly_rate: 999_999_999.9999, amount: 0 });
  });
});

describe('timestamps', () => {
  it('refuses what is not an RFC 3339 date-time in UTC years 1900..9999', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    for (const value of ['9999-12-31T23:59:59-23:59', '1900-01-01T00:30:00+01:00', '2026-11-21T10:30Z', '2026-11-21 10:30:00Z', '+010000-01-01T00:00:00.000Z']) {
      expectInvalid(await api.post('/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly', start_date: value }), ['start_date']);
      expectInvalid(await api.patch(`/projects/${project.id}`, { end_date: value }), ['end_date']);
      expectInvalid(await api.post('/time_entries', { client_id: client.id, started_at: value, duration_minutes: 5 }), ['started_at']);
    }
    expect((await api.get('/time_entries')).body.data).toHaveLength(0);
    expect((await api.get(`/projects/${project.id}`)).body).toEqual(project);
  });

  it('accepts the extremes and compares instants, not strings, in the order rule', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    // 10:00+02:00 is 08:00Z: as text it sorts after 09:00Z, as an instant it is before.
    expectInvalid(
      await api.post('/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly', start_date: '2026-01-01T09:00:00Z', end_date: '2026-01-01T10:00:00+02:00' }),
      ['end_date'],
    );
    const project = await createProject(api, client.id, { start_date: '1900-01-01T00:00:00Z', end_date: '9999-12-31T23:59:59.999+00:00' });
    expect(project).toMatchObject({ start_date: '1900-01-01T00:00:00.000Z', end_date: '9999-12-31T23:59:59.999Z' });
    const entry = await api.post('/time_entries', { client_id: client.id, started_at: '2026-11-21t10:30:00.123456-05:00', duration_minutes: 5 });
    expect(entry.status).toBe(201);
    expect(entry.body.started_at).toBe('2026-11-21T15:30:00.123Z');
  });

  it('drops the digits past the millisecond before any rule or filter compares the time', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const entry = (await api.post('/time_entries', { client_id: client.id, started_at: '2026-01-01T10:00:00.0009Z', duration_minutes: 5 })).body;
    expect(entry.started_at).toBe('2026-01-01T10:00:00.000Z');
    const listed = async (query: string) => (await api.get(`/time_entries?${query}`)).body.data.map((e: { id: string }) => e.id);
    expect(await listed('started_from=2026-01-01T10:00:00.0005Z')).toEqual([entry.id]);
    expect(await listed('started_to=2026-01-01T10:00:00.0005Z')).toEqual([]);
    expect(await listed('started_from=2026-01-01T10:00:00.0005Z&started_to=2026-01-01T10:00:00.0004Z')).toEqual([]);
    const project = await api.post('/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly', start_date: '2026-01-01T10:00:00.0009Z', end_date: '2026-01-01T10:00:00.0001Z' });
    expect(project.body).toMatchObject({ start_date: '2026-01-01T10:00:00.000Z', end_date: '2026-01-01T10:00:00.000Z' });
  });
});

describe('text', () => {
  it('refuses names of invisible characters only, storing nothing', async () => {
    const { api } = await workspace();
    for (const name of ['\u200b\u200b\u2060', '\ufeff', ' \u00a0\u3164 ', '\u0301']) {
      expectInvalid(await api.post('/clients', { company_name: name, company_email: 'a@b.test' }), ['company_name']);
    }
    expect((await api.get('/clients')).body.data).toHaveLength(0);
  });

  it('counts code points: 200 emoji fit a 200-character name, 201 do not', async () => {
    const { api } = await workspace();
    const name = '\u{1F600}'.repeat(200);
    const created = await api.post('/clients', { company_name: name, company_email: 'a@b.test' });
    expect(created.status).toBe(201);
    expect(created.body.company_name).toBe(name);
    expectInvalid(await api.post('/clients', { company_name: `${name}x`, company_email: 'a@b.test' }), ['company_name']);
  });
});

describe('what no one can see', () => {
  const HIDDEN = ['\u0000', '\r', '\n', '\t', '\u007f', '\u0085', '\u202e', '\u2066', '\ud800', '\udc00x'];

  it('is refused in every text field: control characters, unpaired surrogates, bidi overrides and isolates', async () => {
    const { api } = await workspace();
    for (const hidden of HIDDEN) {
      expectInvalid(await api.post('/clients', { company_name: `Acme${hidden}Inc`, company_email: 'a@b.test' }), ['company_name']);
    }
    // A query string cannot carry an unpaired surrogate (its UTF-8 is refused as such): the others.
    for (const hidden of HIDDEN.filter((h) => !/[\ud800-\udfff]/.test(h))) {
      expectInvalid(await api.get(`/clients?search=${encodeURIComponent(`a${hidden}`)}`), ['search']);
    }
    const client = await createClient(api, { company_name: 'Before' });
    for (const hidden of ['\u0000', '\u202e', '\ud800']) {
      expectInvalid(await api.patch(`/clients/${client.id}`, { company_name: `x${hidden}`, company_address: `1 Main St${hidden}` }), ['company_name', 'company_address']);
      expectInvalid(await api.post('/projects', { name: `P${hidden}`, client_id: client.id, billing_type: 'Monthly', description: `d${hidden}` }), ['name', 'description']);
      expectInvalid(await api.post('/time_entries', { client_id: `${client.id}${hidden}`, started_at: '2026-11-20T09:00:00Z', duration_minutes: 5 }), ['client_id']);
    }
    expect((await api.get('/clients')).body.data.map((c: { company_name: string }) => c.company_name)).toEqual(['Before']);
    expect((await api.get('/projects')).body.data).toHaveLength(0);
  });

  it('lets multi-line fields hold tabs and line breaks, and single-line ones not', async () => {
    const { api } = await workspace();
    const client = await createClient(api, { company_address: '1 Main St\r\nSuite\t4' });
    expect(client.company_address).toBe('1 Main St\r\nSuite\t4');
    const project = await createProject(api, client.id, { description: 'line one\nline two' });
    expect(project.description).toBe('line one\nline two');
    expectInvalid(await api.patch(`/projects/${project.id}`, { name: 'line one\nline two' }), ['name']);
  });

  it('in a URL is refused, not trimmed: website and webhook url', async () => {
    const { api } = await workspace();
    for (const website of ['\u0000https://acme.example', 'https://ac\tme.example', ' https://acme.example ', 'https://acme.example/\n', 'https://acme.example/a b', 'https://acme.example/\u202e']) {
      expectInvalid(await api.post('/clients', { company_name: 'Acme', company_email: 'a@b.test', website }), ['website']);
    }
    for (const url of ['http://127.0.0.1:9/hook\n', ' http://127.0.0.1:9/hook', 'http://127.0.0.1:9/ho\tok']) {
      expectInvalid(await api.post('/webhook_endpoints', { url, enabled_events: ['*'] }), ['url']);
    }
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    expect((await api.get('/webhook_endpoints')).body.data).toHaveLength(0);
  });
});

describe('URLs in another spelling than their standard form', () => {
  // What a fuzzer stored and the document refused: non-ASCII, other spellings, invisible characters.
  const SPELLINGS = ['http://127.0.0.1:9/\u00fcn\u00ef/\u{1F600}', 'https://caf\u00e9.test/', 'HTTP://acme.test/', 'http:/acme.test', 'http:\\\\acme.test\\x', 'https://acme.test/a|b', 'https://ac\u200bme.test/', 'https://acme.test/\u180e'];

  it('are refused as website and webhook url on create and PATCH, naming the form to send, storing and changing nothing', async () => {
    const { api } = await workspace();
    for (const website of SPELLINGS) expectInvalid(await api.post('/clients', { company_name: 'A', company_email: 'a@b.co', website }), ['website']);
    for (const url of SPELLINGS) expectInvalid(await api.post('/webhook_endpoints', { url, enabled_events: ['*'] }), ['url']);
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    expect((await api.get('/webhook_endpoints')).body.data).toHaveLength(0);
    const client = await createClient(api, { website: 'https://xn--caf-dma.test/%C3%BCn?q=%7C' });
    expect(client.website).toBe('https://xn--caf-dma.test/%C3%BCn?q=%7C');
    const refused = expectInvalid(await api.patch(`/clients/${client.id}`, { website: 'https://caf\u00e9.test/' }), ['website']);
    expect(refused.message).toContain('https://xn--caf-dma.test/');
    expect((await api.get(`/clients/${client.id}`)).body.website).toBe('https://xn--caf-dma.test/%C3%BCn?q=%7C');
  });
});

describe('a % in a URL', () => {
  it('starts an escape of two hex digits, or the URL is refused (the WHATWG parser would keep it; RFC 3986 does not)', async () => {
    const { api } = await workspace();
    for (const website of ['https://acme.test/%zz', 'https://acme.test/?a=%', 'https://acme.test/%4', 'https://ac%me.test/']) {
      expectInvalid(await api.post('/clients', { company_name: 'A', company_email: 'a@b.co', website }), ['website']);
      expectInvalid(await api.post('/webhook_endpoints', { url: website.replace('https://acme.test', 'http://127.0.0.1:9'), enabled_events: ['*'] }), ['url']);
    }
    expect((await api.get('/clients')).body.data).toHaveLength(0);
    expect((await api.get('/webhook_endpoints')).body.data).toHaveLength(0);
    expect((await createClient(api, { website: 'https://acme.test/100%25?q=%7c' })).website).toBe('https://acme.test/100%25?q=%7c');
  });
});

describe('webhook URLs naming a special address in an IPv6 spelling', () => {
  const SPECIAL = ['[::127.0.0.1]', '[::169.254.169.254]', '[::10.0.0.1]', '[::ffff:0:127.0.0.1]', '[::ffff:0:169.254.169.254]', '[::7f00:1]', '[3fff::1]', '[5f00::1]'];

  it('are refused on create and on PATCH, storing and changing nothing', async () => {
    const { api } = await workspace();
    for (const host of SPECIAL) {
      expectInvalid(await api.post('/webhook_endpoints', { url: `https://${host}/hook`, enabled_events: ['*'] }), ['url']);
    }
    expect((await api.get('/webhook_endpoints')).body.data).toHaveLength(0);
    const created = await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] });
    expect(created.status).toBe(201);
    for (const host of SPECIAL) {
      expectInvalid(await api.patch(`/webhook_endpoints/${created.body.id}`, { url: `https://${host}/hook` }), ['url']);
    }
    expect((await api.get(`/webhook_endpoints/${created.body.id}`)).body.url).toBe('http://127.0.0.1:9/hook');
  });
});

describe('errors', () => {
  it('list every unknown field of a body, with the fields that fail', async () => {
    const { api } = await workspace();
    expectInvalid(await api.post('/clients', { company_name: 'x', company_email: 'a@b.co', alpha: 1, beta: 2 }), ['alpha', 'beta']);
    expectInvalid(await api.post('/clients', { company_email: 'nope', alpha: 1, beta: 2, gamma: 3 }), ['company_name', 'company_email', 'alpha', 'beta', 'gamma']);
    expectInvalid(await api.post('/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'], alpha: 1, beta: 2 }), ['alpha', 'beta']);
    const client = await createClient(api);
    expectInvalid(await api.patch(`/clients/${client.id}`, { alpha: 1, beta: 2 }), ['alpha', 'beta']);
    expectInvalid(await api.post('/projects', { name: 'P', client_id: client.id, billing_type: 'Monthly', alpha: 1, beta: 2 }), ['alpha', 'beta']);
    expectInvalid(await api.post('/time_entries', { client_id: client.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 5, alpha: 1, beta: 2 }), ['alpha', 'beta']);
    expect((await api.get('/clients')).body.data).toHaveLength(1);
  });

  it('say a rule across fields in the same words alone as beside failing and unknown fields, which come first', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    /** The params refused, in order (each field's own rule, the unknown ones, then the rule across fields); the rule's message. */
    const rule = async (response: Promise<ApiResponse>, params: string[]) => {
      const error = expectInvalid(await response, params);
      expect(error.errors!.map((e) => e.param)).toEqual(params);
      return error.errors!.at(-1)!.message;
    };
    const project = { name: 'P', client_id: client.id, billing_type: 'Monthly', start_date: '2026-06-01T00:00:00Z', end_date: '2026-05-01T00:00:00Z' };
    const entry = { started_at: '2026-11-20T09:00:00Z', duration_minutes: 5 };
    const started = 'started_from=2026-12-01T00:00:00Z&started_to=2026-11-01T00:00:00Z';
    const invoice = { client_id: client.id, from: '2026-12-01', to: '2026-11-01' };
    const cases: [Promise<ApiResponse>, string[], string][] = [
      [api.post('/projects', project), ['end_date'], 'end_date must not be before start_date'],
      [api.post('/projects', { ...project, name: ' ', alpha: 1, beta: 2 }), ['name', 'alpha', 'beta', 'end_date'], 'end_date must not be before start_date'],
      [api.post('/time_entries', entry), ['project_id'], 'project_id or client_id is required: a time entry belongs to a project or a client'],
      [api.post('/time_entries', { ...entry, started_at: 'x', alpha: 1, beta: 2 }), ['started_at', 'alpha', 'beta', 'project_id'], 'project_id or client_id is required: a time entry belongs to a project or a client'],
      [api.get(`/time_entries?${started}`), ['started_to'], 'started_to must not be before started_from'],
      [api.get(`/time_entries?${started}&limit=0&alpha=1&beta=2`), ['limit', 'alpha', 'beta', 'started_to'], 'started_to must not be before started_from'],
      [api.post('/invoices', invoice), ['to'], 'to must be after from (to is exclusive: the day after the last one to count)'],
      [api.post('/invoices', { ...invoice, tax_rate: -1, alpha: 1, beta: 2 }), ['tax_rate', 'alpha', 'beta', 'to'], 'to must be after from (to is exclusive: the day after the last one to count)'],
      [api.get('/time_summaries?from=2000-01-01&to=2010-01-09'), ['to'], 'to must be at most 3660 days after from: ask for a shorter range'],
      [api.get('/time_summaries?from=2000-01-01&to=2010-01-09&limit=0&alpha=1&beta=2'), ['limit', 'alpha', 'beta', 'to'], 'to must be at most 3660 days after from: ask for a shorter range'],
    ];
    for (const [response, params, message] of cases) expect(await rule(response, params), params.join()).toBe(message);
    expect((await api.get('/projects')).body.data).toEqual([]);
    expect((await api.get('/invoices')).body.data).toEqual([]);
  });

  it('list every unknown query parameter of a list and of the feed', async () => {
    const { api } = await workspace();
    expectInvalid(await api.get('/clients?alpha=1&beta=2&limit=0'), ['alpha', 'beta', 'limit']);
    expectInvalid(await api.get('/projects?alpha=1&beta=2'), ['alpha', 'beta']);
    expectInvalid(await api.get('/webhook_endpoints?alpha=1&beta=2'), ['alpha', 'beta']);
    expectInvalid(await api.get('/events?alpha=1&beta=2&type=nope'), ['alpha', 'beta', 'type']);
  });
});

describe('a body where the operation takes none', () => {
  it('is refused on DELETE with 400 param body, deleting nothing', async () => {
    const { api, token } = await workspace();
    const client = await createClient(api);
    expectInvalid(await rawRequest('DELETE', `/clients/${client.id}`, token, '{}'), ['body']);
    expect((await api.get(`/clients/${client.id}`)).status).toBe(200);
  });

  it('is refused on GET, retrieve and list alike', async () => {
    const { api, token } = await workspace();
    const client = await createClient(api);
    expectInvalid(await rawRequest('GET', `/clients/${client.id}`, token, '{"a":1}'), ['body']);
    expectInvalid(await rawRequest('GET', '/clients', token, 'x'), ['body']);
  });
});
