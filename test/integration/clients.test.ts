/**
 * The client resource over HTTP, as an integrator sees it: create, retrieve, update, delete,
 * every validation rule of the interface spec and the contract, and the request frame
 * (JSON bodies, media types, size limit, request ids).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_AWS_ENV } from '../../infra/local/dynamodb.ts';
import { keys } from '../../shared/data/keys.ts';
import { RESOURCES } from '../../shared/model/resources.ts';
import { expectInvalid, requestIdOf, send } from '../support/assertions.ts';
import {
  apiFor,
  baseUrl,
  call,
  createClient,
  createProject,
  expectError,
  logTime,
  token,
  workspace,
  type Api,
} from '../support/api.ts';

type Workspace = Awaited<ReturnType<typeof workspace>>;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CLIENT_ID = /^cli_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Well-formed ids that name nothing. */
const UNKNOWN_CLIENT_ID = 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const A_PROJECT_ID = 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const CLIENT_FIELDS = [
  'object',
  'id',
  'company_name',
  'company_email',
  'company_address',
  'website',
  'status',
  'language',
  'currency',
  'business_number',
  'tps_number',
  'tvq_number',
  'relationship_start_date',
  'workspace_id',
  'created_at',
  'updated_at',
].sort();

async function listAll(api: Api, query = '') {
  const response = await api.get(`/clients?limit=100${query}`);
  expect(response.status).toBe(200);
  expect(response.body.has_more).toBe(false);
  return response.body.data as Record<string, unknown>[];
}

const idsOf = (items: Record<string, unknown>[]) => items.map((c) => c.id);

/** A workspace shared by the tests that only add to it and assert on what they created. */
let shared: Workspace;
beforeAll(async () => {
  shared = await workspace('clients');
});

// -------------------------------------------------------------------------------------------

describe('create a client', () => {
  it('returns 201, a Location naming the new client, and the full object with the defaults', async () => {
    const { api, id: ws, token } = await workspace();
    const before = Date.now();
    const response = await api.post('/clients', { company_name: 'Acme Inc', company_email: 'billing@acme.test' });
    const after = Date.now();

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const client = response.body;
    expect(Object.keys(client).sort()).toEqual(CLIENT_FIELDS);
    expect(client).toEqual({
      object: 'client',
      id: expect.stringMatching(CLIENT_ID),
      company_name: 'Acme Inc',
      company_email: 'billing@acme.test',
      company_address: null,
      website: null,
      status: 'LEAD',
      language: 'ENGLISH',
      currency: 'USD',
      business_number: null,
      tps_number: null,
      tvq_number: null,
      relationship_start_date: client.created_at,
      workspace_id: ws,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: client.created_at,
    });
    const createdAt = Date.parse(client.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);

    const location = response.headers.get('location');
    expect(location).toBeTruthy();
    expect(new URL(location!, baseUrl()).pathname).toBe(`/api/v1/clients/${client.id}`);
    requestIdOf(response);

    // The Location names the resource: following it returns the same object.
    const followed = await call('GET', new URL(location!, baseUrl()).pathname, { token });
    expect(followed.status).toBe(200);
    expect(followed.body).toEqual(client);
  });

  it('stores every optional field given', async () => {
    const { api } = await workspace();
    const body = {
      company_name: 'Société Générale de Tests',
      company_email: 'compta@sgt.example.ca',
      company_address: '1 rue Principale, Montréal, QC',
      website: 'https://sgt.example.ca/about?x=1',
      status: 'ACTIVE',
      language: 'FRENCH',
      business_number: '123456789',
      tps_number: '123456789 RT0001',
      tvq_number: '1234567890 TQ0001',
    };
    const response = await api.post('/clients', body);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ object: 'client', ...body });
    expect((await api.get(`/clients/${response.body.id}`)).body).toEqual(response.body);
  });

  it.each(['LEAD', 'ACTIVE', 'SLEEPING', 'LOST'])('accepts status %s', async (status) => {
    const response = await shared.api.post('/clients', { company_name: 'S', company_email: 's@s.test', status });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe(status);
  });

  it('accepts null for the optional nullable fields and stores null', async () => {
    const response = await shared.api.post('/clients', {
      company_name: 'Nulls',
      company_email: 'n@n.test',
      company_address: null,
      website: null,
      business_number: null,
      tps_number: null,
      tvq_number: null,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ company_address: null, website: null, business_number: null, tps_number: null, tvq_number: null });
  });

  // Spec: "company_email: Valid email". Addresses valid by RFC 5322 that a stricter pattern refused.
  it.each(["o'brien@acme.test", 'billing&accounts@acme.test', 'user@xn--bcher-kva.example', 'compta@acme.xn--p1ai'])(
    'accepts the valid company_email %s, and on update',
    async (company_email) => {
      const response = await shared.api.post('/clients', { company_name: 'Email', company_email });
      expect(response.status).toBe(201);
      expect(response.body.company_email).toBe(company_email);
      const updated = await shared.api.patch(`/clients/${response.body.id}`, { company_email: `x.${company_email}` });
      expect(updated.status).toBe(200);
      expect((await shared.api.get(`/clients/${response.body.id}`)).body.company_email).toBe(`x.${company_email}`);
    },
  );

  it('accepts a company_name of exactly 200 characters', async () => {
    const name = 'n'.repeat(200);
    const response = await shared.api.post('/clients', { company_name: name, company_email: 'long@n.test' });
    expect(response.status).toBe(201);
    expect(response.body.company_name).toBe(name);
  });

  it('gives every client its own id', async () => {
    const { api } = await workspace();
    const a = await createClient(api);
    const b = await createClient(api);
    expect(a.id).not.toBe(b.id);
    expect(idsOf(await listAll(api))).toEqual([b.id, a.id]);
  });

  it('accepts Content-Type application/json; charset=utf-8', async () => {
    const { api, token } = await workspace();
    const response = await send('POST', '/clients', token, JSON.stringify({ company_name: 'Charset', company_email: 'c@c.test' }), 'application/json; charset=utf-8');
    expect(response.status).toBe(201);
    expect(response.body.company_name).toBe('Charset');
    expect(idsOf(await listAll(api))).toEqual([response.body.id]);
  });
});

// -------------------------------------------------------------------------------------------

describe('create a client: validation', () => {
  let ws: Workspace;
  let existing: Record<string, unknown>[];

  beforeAll(async () => {
    ws = await workspace();
    await createClient(ws.api, { company_name: 'Already here' });
    existing = await listAll(ws.api);
    expect(existing).toHaveLength(1);
  });

  /** The create is refused with these fields named, and nothing was stored. */
  async function expectRefused(body: unknown, params: string[]) {
    const response = await ws.api.post('/clients', body);
    const error = expectInvalid(response, params);
    expect(await listAll(ws.api)).toEqual(existing);
    return error;
  }

  const valid = { company_name: 'Acme Inc', company_email: 'billing@acme.test' };
  const long = (n: number) => 'x'.repeat(n);

  it.each<[string, Record<string, unknown>, string]>([
    ['company_name missing', { company_email: 'a@b.test' }, 'company_name'],
    ['company_email missing', { company_name: 'Acme' }, 'company_email'],
    ['company_name blank', { ...valid, company_name: '   ' }, 'company_name'],
    ['company_name empty', { ...valid, company_name: '' }, 'company_name'],
    ['company_name not a string', { ...valid, company_name: 42 }, 'company_name'],
    ['company_name null', { ...valid, company_name: null }, 'company_name'],
    ['company_name over 200 characters', { ...valid, company_name: long(201) }, 'company_name'],
    ['company_email not an email', { ...valid, company_email: 'not-an-email' }, 'company_email'],
    ['company_email without domain', { ...valid, company_email: 'billing@' }, 'company_email'],
    ['company_email empty', { ...valid, company_email: '' }, 'company_email'],
    ['company_email not a string', { ...valid, company_email: ['a@b.test'] }, 'company_email'],
    ['company_email null', { ...valid, company_email: null }, 'company_email'],
    ['company_email with consecutive dots', { ...valid, company_email: 'a..b@acme.test' }, 'company_email'],
    ['company_email with a numeric top-level domain', { ...valid, company_email: 'a@192.168.0.1' }, 'company_email'],
    ['company_email too long', { ...valid, company_email: `${long(250)}@b.test` }, 'company_email'],
    ['company_email with a local part over 64 octets', { ...valid, company_email: `${long(65)}@acme.test` }, 'company_email'],
    ['website not a URL', { ...valid, website: 'not a url' }, 'website'],
    ['website without scheme', { ...valid, website: 'www.acme.test' }, 'website'],
    ['website with an ftp scheme', { ...valid, website: 'ftp://x' }, 'website'],
    ['website with a javascript scheme', { ...valid, website: 'javascript:alert(1)' }, 'website'],
    ['website empty', { ...valid, website: '' }, 'website'],
    ['website not a string', { ...valid, website: 1 }, 'website'],
    ['website too long', { ...valid, website: `https://acme.test/${long(2048)}` }, 'website'],
    ['status unknown', { ...valid, status: 'ARCHIVED' }, 'status'],
    ['status in the wrong case', { ...valid, status: 'lead' }, 'status'],
    ['status null', { ...valid, status: null }, 'status'],
    ['status not a string', { ...valid, status: 1 }, 'status'],
    ['language unknown', { ...valid, language: 'SPANISH' }, 'language'],
    ['language in the wrong case', { ...valid, language: 'French' }, 'language'],
    ['language as a code', { ...valid, language: 'fr' }, 'language'],
    ['company_address blank', { ...valid, company_address: ' ' }, 'company_address'],
    ['company_address too long', { ...valid, company_address: long(1001) }, 'company_address'],
    ['company_address not a string', { ...valid, company_address: { street: 'x' } }, 'company_address'],
    ['business_number too long', { ...valid, business_number: '1'.repeat(33) }, 'business_number'],
    ['business_number empty', { ...valid, business_number: '' }, 'business_number'],
    ['tps_number with markup', { ...valid, tps_number: '<b>1</b>' }, 'tps_number'],
    ['tvq_number not a string', { ...valid, tvq_number: 1234 }, 'tvq_number'],
    ['an unknown field', { ...valid, colour: 'blue' }, 'colour'],
    ['relationship_start_date (read-only)', { ...valid, relationship_start_date: '2026-01-01T00:00:00Z' }, 'relationship_start_date'],
    ['id (read-only)', { ...valid, id: UNKNOWN_CLIENT_ID }, 'id'],
    ['workspace_id (read-only)', { ...valid, workspace_id: 'ws-other' }, 'workspace_id'],
    ['created_at (read-only)', { ...valid, created_at: '2026-01-01T00:00:00Z' }, 'created_at'],
  ])('refuses %s', async (_name, body, param) => {
    const error = await expectRefused(body, [param]);
    expect(error.param).toBe(param);
  });

  it('says what is wrong in words an integrator can act on', async () => {
    expect((await expectRefused({ company_email: 'a@b.test' }, ['company_name'])).message).toMatch(/company_name.*required/);
    expect((await expectRefused({ ...valid, company_email: 'x' }, ['company_email'])).message).toMatch(/company_email.*email/);
    expect((await expectRefused({ ...valid, status: 'lead' }, ['status'])).message).toMatch(/LEAD, ACTIVE, SLEEPING, LOST/);
    expect((await expectRefused({ ...valid, colour: 'blue' }, ['colour'])).message).toMatch(/colour/);
  });

  it('lists every failing field in one response, param naming the first', async () => {
    await expectRefused(
      {
        company_name: '',
        company_email: 'nope',
        website: 'ftp://x',
        status: 'lead',
        language: 'fr',
        tps_number: '',
        colour: 'blue',
      },
      ['company_name', 'company_email', 'website', 'status', 'language', 'tps_number', 'colour'],
    );
    await expectRefused({}, ['company_name', 'company_email']);
    await expectRefused({ website: 'x' }, ['company_name', 'company_email', 'website']);
  });

});

// -------------------------------------------------------------------------------------------

describe('retrieve a client', () => {
  it('returns 200 and the object as created', async () => {
    const client = await createClient(shared.api, { website: 'https://acme.test', language: 'FRENCH' });
    const response = await shared.api.get(`/clients/${client.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(client);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    requestIdOf(response);
  });

  it.each([
    ['an unknown id', UNKNOWN_CLIENT_ID],
    ['a malformed id', 'not-an-id'],
    ['an id in lower case', UNKNOWN_CLIENT_ID.toLowerCase()],
    ['an id of another kind', A_PROJECT_ID],
    ['a very long id', `cli_${'A'.repeat(500)}`],
  ])('answers 404 not_found for %s', async (_name, id) => {
    const error = expectError(await shared.api.get(`/clients/${encodeURIComponent(id)}`), 404, 'not_found');
    expect(error.message).toContain(id);
  });

  it('answers 404 for a real project id used as a client id', async () => {
    const client = await createClient(shared.api);
    const project = await createProject(shared.api, client.id);
    expectError(await shared.api.get(`/clients/${project.id}`), 404, 'not_found');
  });

  it('answers 404 for a client of another workspace', async () => {
    const other = await workspace();
    const theirs = await createClient(other.api);
    const error = expectError(await shared.api.get(`/clients/${theirs.id}`), 404, 'not_found');
    expect(error.message).toBe(`No client with id '${theirs.id}'`);
  });
});

// -------------------------------------------------------------------------------------------

describe('update a client', () => {
  const full = {
    company_name: 'Full Co',
    company_email: 'full@full.test',
    company_address: '10 Main St',
    website: 'https://full.test',
    status: 'ACTIVE',
    language: 'FRENCH',
    business_number: 'BN-1',
    tps_number: 'TPS 2',
    tvq_number: 'TVQ/3',
  };

  it('changes only the fields given and returns the whole updated object', async () => {
    const client = await createClient(shared.api, full);
    const response = await shared.api.patch(`/clients/${client.id}`, { company_name: 'Renamed Co', language: 'ENGLISH' });
    expect(response.status).toBe(200);
    requestIdOf(response);
    expect(Object.keys(response.body).sort()).toEqual(CLIENT_FIELDS);
    expect(response.body).toEqual({
      ...client,
      company_name: 'Renamed Co',
      language: 'ENGLISH',
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(response.body.created_at).toBe(client.created_at);
    expect(response.body.relationship_start_date).toBe(client.relationship_start_date);
    expect(Date.parse(response.body.updated_at)).toBeGreaterThan(Date.parse(client.updated_at));
    expect((await shared.api.get(`/clients/${client.id}`)).body).toEqual(response.body);
  });

  it('changes every updatable field', async () => {
    const client = await createClient(shared.api);
    const patch = { ...full, status: 'LOST' };
    const response = await shared.api.patch(`/clients/${client.id}`, patch);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ...patch, id: client.id, created_at: client.created_at, workspace_id: client.workspace_id });
  });

  it('moves updated_at strictly forward on every change, even for quick successive PATCHes', async () => {
    const client = await createClient(shared.api);
    const stamps = [client.updated_at as string];
    for (let i = 0; i < 5; i++) {
      const response = await shared.api.patch(`/clients/${client.id}`, { company_name: `Quick ${i}` });
      expect(response.status).toBe(200);
      expect(response.body.updated_at).toMatch(TIMESTAMP);
      expect(response.body.created_at).toBe(client.created_at);
      stamps.push(response.body.updated_at);
    }
    for (let i = 1; i < stamps.length; i++) expect(Date.parse(stamps[i]!)).toBeGreaterThan(Date.parse(stamps[i - 1]!));
    expect((await shared.api.get(`/clients/${client.id}`)).body.company_name).toBe('Quick 4');
  });

  it('applies simultaneous PATCHes one after the other, each with its own later updated_at', async () => {
    const client = await createClient(shared.api);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => shared.api.patch(`/clients/${client.id}`, { company_name: `Simultaneous ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const stamps = responses.map((r) => Date.parse(r.body.updated_at));
    expect(new Set(stamps).size).toBe(10);
    for (const stamp of stamps) expect(stamp).toBeGreaterThan(Date.parse(client.updated_at));
    // The stored object is the one written last.
    const last = responses.reduce((a, b) => (Date.parse(a.body.updated_at) > Date.parse(b.body.updated_at) ? a : b)).body;
    expect((await shared.api.get(`/clients/${client.id}`)).body).toEqual(last);
  });

  it('clears the nullable fields with null', async () => {
    const client = await createClient(shared.api, full);
    const response = await shared.api.patch(`/clients/${client.id}`, {
      company_address: null,
      website: null,
      business_number: null,
      tps_number: null,
      tvq_number: null,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...client,
      company_address: null,
      website: null,
      business_number: null,
      tps_number: null,
      tvq_number: null,
      updated_at: response.body.updated_at,
    });
    expect((await shared.api.get(`/clients/${client.id}`)).body).toEqual(response.body);
  });

  it('sets a cleared field again', async () => {
    const client = await createClient(shared.api, { website: 'https://a.test' });
    expect((await shared.api.patch(`/clients/${client.id}`, { website: null })).body.website).toBeNull();
    expect((await shared.api.patch(`/clients/${client.id}`, { website: 'https://b.test' })).body.website).toBe('https://b.test');
  });

  it('returns 200 and the unchanged object for an empty body', async () => {
    const client = await createClient(shared.api, full);
    const response = await shared.api.patch(`/clients/${client.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(client);
    expect((await shared.api.get(`/clients/${client.id}`)).body).toEqual(client);
  });

  describe('refused updates change nothing', () => {
    let client: Record<string, any>;
    beforeAll(async () => {
      client = await createClient(shared.api, full);
    });

    async function expectRefusedUpdate(body: unknown, params: string[]) {
      const error = expectInvalid(await shared.api.patch(`/clients/${client.id}`, body), params);
      expect((await shared.api.get(`/clients/${client.id}`)).body).toEqual(client);
      return error;
    }

    it.each<[string, Record<string, unknown>, string]>([
      ['company_name null', { company_name: null }, 'company_name'],
      ['company_email null', { company_email: null }, 'company_email'],
      ['status null', { status: null }, 'status'],
      ['language null', { language: null }, 'language'],
      ['company_name blank', { company_name: ' ' }, 'company_name'],
      ['company_name over 200 characters', { company_name: 'x'.repeat(201) }, 'company_name'],
      ['company_email not an email', { company_email: 'nope' }, 'company_email'],
      ['website not a URL', { website: 'nope' }, 'website'],
      ['website with an ftp scheme', { website: 'ftp://x' }, 'website'],
      ['status unknown', { status: 'ARCHIVED' }, 'status'],
      ['status in the wrong case', { status: 'sleeping' }, 'status'],
      ['language unknown', { language: 'GERMAN' }, 'language'],
      ['tps_number too long', { tps_number: '1'.repeat(33) }, 'tps_number'],
    ])('refuses %s', async (_name, body, param) => {
      const error = await expectRefusedUpdate(body, [param]);
      expect(error.param).toBe(param);
    });

    it('refuses a valid change together with an invalid one, applying neither', async () => {
      await expectRefusedUpdate({ company_name: 'Half Applied', company_email: 'bad' }, ['company_email']);
      await expectRefusedUpdate({ status: 'LOST', colour: 'blue' }, ['colour']);
    });

    it('lists every failing field, param naming the first', async () => {
      await expectRefusedUpdate(
        { company_name: null, company_email: 'bad', website: 'ftp://x', status: 'x', language: null, colour: 1 },
        ['company_name', 'company_email', 'website', 'status', 'language', 'colour'],
      );
    });

  });

  it.each([
    ['an unknown id', UNKNOWN_CLIENT_ID],
    ['a malformed id', 'nope'],
    ['an id of another kind', A_PROJECT_ID],
  ])('answers 404 for %s', async (_name, id) => {
    expectError(await shared.api.patch(`/clients/${id}`, { company_name: 'Ghost' }), 404, 'not_found');
    expectError(await shared.api.patch(`/clients/${id}`, {}), 404, 'not_found');
  });

  it('answers 404 for a client of another workspace, and leaves it unchanged', async () => {
    const other = await workspace();
    const theirs = await createClient(other.api);
    expectError(await shared.api.patch(`/clients/${theirs.id}`, { company_name: 'Hijacked' }), 404, 'not_found');
    expect((await other.api.get(`/clients/${theirs.id}`)).body).toEqual(theirs);
  });

  it('answers 404 for a deleted client and does not bring it back', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
    expectError(await api.patch(`/clients/${client.id}`, { company_name: 'Zombie' }), 404, 'not_found');
    expectError(await api.get(`/clients/${client.id}`), 404, 'not_found');
    expect(await listAll(api)).toEqual([]);
  });

  it('moves the client between the status lists', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const other = await createClient(api, { company_name: 'Stays a lead' });
    expect(idsOf(await listAll(api, '&status=LEAD'))).toEqual([other.id, client.id]);

    expect((await api.patch(`/clients/${client.id}`, { status: 'SLEEPING' })).status).toBe(200);
    const sleeping = await listAll(api, '&status=SLEEPING');
    expect(idsOf(sleeping)).toEqual([client.id]);
    expect(sleeping[0]).toMatchObject({ status: 'SLEEPING' });
    expect(idsOf(await listAll(api, '&status=LEAD'))).toEqual([other.id]);

    expect((await api.patch(`/clients/${client.id}`, { status: 'LOST' })).status).toBe(200);
    expect(idsOf(await listAll(api, '&status=SLEEPING'))).toEqual([]);
    expect(idsOf(await listAll(api, '&status=LOST'))).toEqual([client.id]);
    expect(idsOf(await listAll(api))).toEqual([other.id, client.id]);

    // A change of another field keeps it in its status list, with the new values.
    expect((await api.patch(`/clients/${client.id}`, { company_name: 'Lost and renamed' })).status).toBe(200);
    const lost = await listAll(api, '&status=LOST');
    expect(lost).toEqual([(await api.get(`/clients/${client.id}`)).body]);
  });

  it('finds a renamed client by its new name, not its old one', async () => {
    const { api } = await workspace();
    const client = await createClient(api, { company_name: 'Old Name Widgets' });
    expect(idsOf(await listAll(api, '&search=widgets'))).toEqual([client.id]);
    expect((await api.patch(`/clients/${client.id}`, { company_name: 'Brand New Gadgets' })).status).toBe(200);
    expect(idsOf(await listAll(api, '&search=widgets'))).toEqual([]);
    expect(idsOf(await listAll(api, '&search=GADGETS'))).toEqual([client.id]);
    expect(idsOf(await listAll(api, '&search=new%20gad'))).toEqual([client.id]);
  });

  // Spec: "search: Case-insensitive match on company name". Lower-casing alone writes Σ as ς or σ
  // by its place in the word, so a name's own letters, in its own case, found nothing.
  it('matches Greek sigma in either case and either lower-case form, wherever the word ends', async () => {
    const { api } = await workspace();
    const client = await createClient(api, { company_name: 'ΑΣΤΡΟ ΟΔΟΣ' });
    for (const search of ['ΑΣ', 'αΣ', 'ας', 'ασ', 'Σ', 'ΟΔΟΣ', 'οδοσ', 'οδος', 'ΑΣΤΡΟ ΟΔΟΣ', 'αστρο']) {
      expect(idsOf(await listAll(api, `&search=${encodeURIComponent(search)}`)), search).toEqual([client.id]);
    }
  });

  // Contract: case-insensitive is Unicode's full case folding (test/unit/search-fold.test.ts has all of it).
  it('matches ß, ẞ and ss alike, and İ with i̇', async () => {
    const { api } = await workspace();
    const client = await createClient(api, { company_name: 'Große Straße İnşaat' });
    for (const search of ['GROSSE', 'grosse', 'große', 'GROẞE', 'strasse', 'STRASSE', 'i̇nşaat', 'İNŞAAT']) {
      expect(idsOf(await listAll(api, `&search=${encodeURIComponent(search)}`)), search).toEqual([client.id]);
    }
    expect(idsOf(await listAll(api, '&search=inşaat'))).toEqual([]);
  });

  it('still finds a client stored with the fold before full case folding by what found it then', async () => {
    const { id, api } = await workspace();
    const client = await createClient(api, { company_name: 'Straße Werke' });
    // As stored before: lower-cased, ß kept.
    const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: LOCAL_AWS_ENV.AWS_REGION, credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY } }));
    try {
      await db.send(new UpdateCommand({ TableName: inject('tableName'), Key: keys.item(id, RESOURCES.client.type, client.id), UpdateExpression: 'SET search_text = :old', ExpressionAttributeValues: { ':old': 'straße werke' } }));
    } finally {
      db.destroy();
    }
    for (const search of ['Straße', 'STRAẞE', 'werke']) expect(idsOf(await listAll(api, `&search=${encodeURIComponent(search)}`)), search).toEqual([client.id]);
    // Found by ss once renamed (docs/api.md: no backfill).
    expect(idsOf(await listAll(api, '&search=strasse'))).toEqual([]);
    expect((await api.patch(`/clients/${client.id}`, { company_name: 'Straße Werke' })).status).toBe(200);
    expect(idsOf(await listAll(api, '&search=strasse'))).toEqual([client.id]);
  });
});

// -------------------------------------------------------------------------------------------

describe('delete a client', () => {
  it('returns 200 with the delete result, then the client is gone', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const kept = await createClient(api, { company_name: 'Kept' });
    const response = await api.delete(`/clients/${client.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'client', id: client.id, deleted: true });
    requestIdOf(response);

    expectError(await api.get(`/clients/${client.id}`), 404, 'not_found');
    expectError(await api.delete(`/clients/${client.id}`), 404, 'not_found');
    expect(idsOf(await listAll(api))).toEqual([kept.id]);
    expect(idsOf(await listAll(api, '&status=LEAD'))).toEqual([kept.id]);
    expect((await api.get(`/clients/${kept.id}`)).body).toEqual(kept);
  });

  it.each([
    ['an unknown id', UNKNOWN_CLIENT_ID],
    ['a malformed id', 'nope'],
    ['an id of another kind', A_PROJECT_ID],
  ])('answers 404 for %s', async (_name, id) => {
    expectError(await shared.api.delete(`/clients/${id}`), 404, 'not_found');
  });

  it('answers 404 for a client of another workspace and keeps it', async () => {
    const other = await workspace();
    const theirs = await createClient(other.api);
    expectError(await shared.api.delete(`/clients/${theirs.id}`), 404, 'not_found');
    expect((await other.api.get(`/clients/${theirs.id}`)).body).toEqual(theirs);
  });

  it('refuses (409) while the client has a project, keeps it, and deletes it once the project is gone', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);

    const error = expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict');
    expect(error.message).toMatch(/1 project\b/);
    expect(error.message).not.toMatch(/time entr/);
    expect((await api.get(`/clients/${client.id}`)).body).toEqual(client);
    expect(idsOf(await listAll(api))).toEqual([client.id]);

    expect((await api.delete(`/projects/${project.id}`)).status).toBe(200);
    const response = await api.delete(`/clients/${client.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'client', id: client.id, deleted: true });
    expectError(await api.get(`/clients/${client.id}`), 404, 'not_found');
  });

  it('counts the projects that block it', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const projects = [await createProject(api, client.id), await createProject(api, client.id, { name: 'Second' })];
    expect(expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict').message).toMatch(/2 projects/);
    expect((await api.delete(`/projects/${projects[0].id}`)).status).toBe(200);
    expect(expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict').message).toMatch(/1 project\b/);
    expect((await api.delete(`/projects/${projects[1].id}`)).status).toBe(200);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
  });

  it('refuses (409) while time entries are logged against the client alone', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const entry = await logTime(api, { client_id: client.id });
    expect(entry.project_id).toBeNull();

    const error = expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict');
    expect(error.message).toMatch(/1 time entry/);
    expect(error.message).not.toMatch(/project/);
    expect((await api.get(`/clients/${client.id}`)).body).toEqual(client);

    expect((await api.delete(`/time_entries/${entry.id}`)).status).toBe(200);
    expect((await api.delete(`/clients/${client.id}`)).body).toEqual({ object: 'client', id: client.id, deleted: true });
    expectError(await api.get(`/clients/${client.id}`), 404, 'not_found');
  });

  it('names the blockers without counts to a token that cannot list them', async () => {
    const { id, api } = await workspace();
    const client = await createClient(api);
    await createProject(api, client.id);
    await logTime(api, { client_id: client.id });
    const writeOnly = apiFor(await token(id, ['clients:write']));
    const error = expectError(await writeOnly.delete(`/clients/${client.id}`), 409, 'conflict');
    expect(error.message).toMatch(/still has projects and time entries and cannot be deleted/);
    expect(error.message).not.toMatch(/\d+ (project|time entr)/);
    // Reading projects only: the projects are counted, the time entries are not.
    const projectsReader = apiFor(await token(id, ['clients:write', 'projects:read']));
    expect(expectError(await projectsReader.delete(`/clients/${client.id}`), 409, 'conflict').message).toMatch(/still has 1 project and time entries and/);
    expect((await api.get(`/clients/${client.id}`)).status).toBe(200);
  });

  it('names both blockers when the client has projects and time entries', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const onProject = await logTime(api, { project_id: project.id });
    const onClient = await logTime(api, { client_id: client.id });

    const error = expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict');
    expect(error.message).toMatch(/1 project\b/);
    expect(error.message).toMatch(/2 time entries/);
    expect(error.message).toContain(client.id);

    // Archiving is the alternative the message offers, and it works.
    expect(error.message).toMatch(/SLEEPING|LOST/);
    expect((await api.patch(`/clients/${client.id}`, { status: 'SLEEPING' })).body.status).toBe('SLEEPING');

    for (const entry of [onProject, onClient]) expect((await api.delete(`/time_entries/${entry.id}`)).status).toBe(200);
    expect(expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict').message).not.toMatch(/time entr/);
    expect((await api.delete(`/projects/${project.id}`)).status).toBe(200);
    expect((await api.delete(`/clients/${client.id}`)).status).toBe(200);
  });
});
