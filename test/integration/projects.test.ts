/**
 * The project resource over HTTP, as an integrator sees it: create, retrieve, update, delete,
 * every validation rule of the interface spec and the contract (including the client
 * reference and the date range), and the request frame.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid, requestIdOf } from '../support/assertions.ts';
import {
  baseUrl,
  call,
  createClient,
  createProject,
  expectError,
  logTime,
  workspace,
  type Api,
} from '../support/api.ts';

type Workspace = Awaited<ReturnType<typeof workspace>>;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PROJECT_ID = /^prj_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Well-formed ids that name nothing. */
const UNKNOWN_PROJECT_ID = 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const UNKNOWN_CLIENT_ID = 'cli_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const PROJECT_FIELDS = [
  'object',
  'id',
  'name',
  'description',
  'status',
  'billing_type',
  'hourly_rate',
  'fixed_price',
  'amount',
  'interval_count',
  'interval_unit',
  'client_id',
  'workspace_id',
  'start_date',
  'end_date',
  'created_at',
  'updated_at',
].sort();

async function listAll(api: Api, query = '') {
  const response = await api.get(`/projects?limit=100${query}`);
  expect(response.status).toBe(200);
  expect(response.body.has_more).toBe(false);
  return response.body.data as Record<string, unknown>[];
}

const idsOf = (items: Record<string, unknown>[]) => items.map((c) => c.id);

/** A workspace shared by the tests that only add to it and assert on what they created. */
let shared: Workspace;
let sharedClient: Record<string, any>;
beforeAll(async () => {
  shared = await workspace('projects');
  sharedClient = await createClient(shared.api, { company_name: 'Shared client' });
});

// -------------------------------------------------------------------------------------------

describe('create a project', () => {
  it('returns 201, a Location naming the new project, and the full object with the defaults', async () => {
    const { api, id: ws, token } = await workspace();
    const client = await createClient(api);
    const before = Date.now();
    const response = await api.post('/projects', { name: 'Website', client_id: client.id, billing_type: 'Monthly' });
    const after = Date.now();

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const project = response.body;
    expect(Object.keys(project).sort()).toEqual(PROJECT_FIELDS);
    expect(project).toEqual({
      object: 'project',
      id: expect.stringMatching(PROJECT_ID),
      name: 'Website',
      description: null,
      status: 'ACTIVE',
      billing_type: 'Monthly',
      hourly_rate: null,
      fixed_price: null,
      amount: null,
      interval_count: null,
      interval_unit: null,
      client_id: client.id,
      workspace_id: ws,
      start_date: project.created_at,
      end_date: null,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: project.created_at,
    });
    const createdAt = Date.parse(project.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(after + 1000);

    const location = response.headers.get('location');
    expect(location).toBeTruthy();
    const path = new URL(location!, baseUrl()).pathname;
    expect(path).toBe(`/api/v1/projects/${project.id}`);
    requestIdOf(response);
    const followed = await call('GET', path, { token });
    expect(followed.status).toBe(200);
    expect(followed.body).toEqual(project);
  });

  it('stores every optional field given, timestamps normalised to UTC with milliseconds', async () => {
    const body = {
      name: 'Retainer 2027',
      client_id: sharedClient.id,
      billing_type: 'Retainer',
      description: 'Monthly retainer, French invoices',
      status: 'ON_HOLD',
      hourly_rate: 150.5,
      fixed_price: 0,
      amount: 12000,
      interval_count: 3,
      interval_unit: 'Month',
      start_date: '2026-11-21T10:30:00+01:00',
      end_date: '2027-11-21T10:30:00.5-05:00',
    };
    const response = await shared.api.post('/projects', body);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      ...body,
      object: 'project',
      start_date: '2026-11-21T09:30:00.000Z',
      end_date: '2027-11-21T15:30:00.500Z',
      workspace_id: shared.id,
    });
    expect((await shared.api.get(`/projects/${response.body.id}`)).body).toEqual(response.body);
  });

  it.each([
    ['2026-11-21T09:30:00Z', '2026-11-21T09:30:00.000Z'],
    ['2026-11-21T09:30:00.123456Z', '2026-11-21T09:30:00.123Z'],
    ['2026-11-21t09:30:00z', '2026-11-21T09:30:00.000Z'],
    ['2026-11-21T00:30:00+01:00', '2026-11-20T23:30:00.000Z'],
    ['2024-02-29T12:00:00-03:30', '2024-02-29T15:30:00.000Z'],
  ])('accepts start_date %s and returns %s', async (given, expected) => {
    const response = await shared.api.post('/projects', { name: 'Dates', client_id: sharedClient.id, billing_type: 'Weekly', start_date: given });
    expect(response.status).toBe(201);
    expect(response.body.start_date).toBe(expected);
  });

  it.each(['Weekly', 'BiMonthly', 'Monthly', 'CreditBased', 'Retainer', 'ProjectBased'])('accepts billing_type %s', async (billingType) => {
    const response = await shared.api.post('/projects', { name: 'B', client_id: sharedClient.id, billing_type: billingType });
    expect(response.status).toBe(201);
    expect(response.body.billing_type).toBe(billingType);
  });

  it.each(['ACTIVE', 'COMPLETED', 'ON_HOLD', 'CANCELLED'])('accepts status %s', async (status) => {
    const response = await shared.api.post('/projects', { name: 'S', client_id: sharedClient.id, billing_type: 'Monthly', status });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe(status);
  });

  it.each(['Day', 'Week', 'Month', 'Year'])('accepts interval_unit %s', async (unit) => {
    const response = await shared.api.post('/projects', { name: 'I', client_id: sharedClient.id, billing_type: 'Monthly', interval_unit: unit, interval_count: 1 });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ interval_unit: unit, interval_count: 1 });
  });

  it('accepts zero for the monetary fields, null for the nullable ones, and end_date equal to start_date', async () => {
    const response = await shared.api.post('/projects', {
      name: 'Edges',
      client_id: sharedClient.id,
      billing_type: 'ProjectBased',
      hourly_rate: 0,
      fixed_price: 0,
      amount: 0,
      description: null,
      interval_count: null,
      interval_unit: null,
      start_date: '2026-01-01T00:00:00Z',
      end_date: '2026-01-01T01:00:00+01:00',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      hourly_rate: 0,
      fixed_price: 0,
      amount: 0,
      description: null,
      interval_count: null,
      interval_unit: null,
      start_date: '2026-01-01T00:00:00.000Z',
      end_date: '2026-01-01T00:00:00.000Z',
    });
  });

  it('accepts a name of exactly 200 characters', async () => {
    const name = 'p'.repeat(200);
    const response = await shared.api.post('/projects', { name, client_id: sharedClient.id, billing_type: 'Monthly' });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe(name);
  });

  it('lists the new project, also under its client', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const otherClient = await createClient(api, { company_name: 'Other' });
    const a = await createProject(api, client.id);
    const b = await createProject(api, otherClient.id);
    expect(idsOf(await listAll(api))).toEqual([b.id, a.id]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}`))).toEqual([a.id]);
    expect(idsOf(await listAll(api, `&client_id=${otherClient.id}`))).toEqual([b.id]);
    expect(idsOf(await listAll(api, '&status=ACTIVE'))).toEqual([b.id, a.id]);
  });

});

// -------------------------------------------------------------------------------------------

describe('create a project: validation', () => {
  let ws: Workspace;
  let client: Record<string, any>;
  let existing: Record<string, unknown>[];

  beforeAll(async () => {
    ws = await workspace();
    client = await createClient(ws.api);
    await createProject(ws.api, client.id, { name: 'Already here' });
    existing = await listAll(ws.api);
    expect(existing).toHaveLength(1);
  });

  /** The create is refused with these fields named, and nothing was stored. */
  async function expectRefused(body: unknown, params: string[]) {
    const response = await ws.api.post('/projects', body);
    const error = expectInvalid(response, params);
    expect(await listAll(ws.api)).toEqual(existing);
    return error;
  }

  const valid = () => ({ name: 'Website', client_id: client.id, billing_type: 'Monthly' });
  const withField = (field: string, value: unknown) => () => ({ ...valid(), [field]: value });
  const without = (field: string) => () => {
    const body: Record<string, unknown> = valid();
    delete body[field];
    return body;
  };

  it.each<[string, () => Record<string, unknown>, string]>([
    ['name missing', without('name'), 'name'],
    ['client_id missing', without('client_id'), 'client_id'],
    ['billing_type missing', without('billing_type'), 'billing_type'],
    ['name blank', withField('name', '  '), 'name'],
    ['name empty', withField('name', ''), 'name'],
    ['name null', withField('name', null), 'name'],
    ['name not a string', withField('name', 7), 'name'],
    ['name over 200 characters', withField('name', 'x'.repeat(201)), 'name'],
    ['description blank', withField('description', ''), 'description'],
    ['description over 5000 characters', withField('description', 'd'.repeat(5001)), 'description'],
    ['billing_type unknown', withField('billing_type', 'Hourly'), 'billing_type'],
    ['billing_type in the wrong case', withField('billing_type', 'weekly'), 'billing_type'],
    ['billing_type in upper case', withField('billing_type', 'MONTHLY'), 'billing_type'],
    ['billing_type null', withField('billing_type', null), 'billing_type'],
    ['status unknown', withField('status', 'DONE'), 'status'],
    ['status in the wrong case', withField('status', 'active'), 'status'],
    ['status null', withField('status', null), 'status'],
    ['hourly_rate negative', withField('hourly_rate', -1), 'hourly_rate'],
    ['hourly_rate as a string', withField('hourly_rate', '10'), 'hourly_rate'],
    ['hourly_rate huge', withField('hourly_rate', 1e12), 'hourly_rate'],
    ['fixed_price negative', withField('fixed_price', -0.01), 'fixed_price'],
    ['fixed_price as a string', withField('fixed_price', '10'), 'fixed_price'],
    ['fixed_price a boolean', withField('fixed_price', true), 'fixed_price'],
    ['amount negative', withField('amount', -5), 'amount'],
    ['amount as a string', withField('amount', '10'), 'amount'],
    ['interval_count 0', withField('interval_count', 0), 'interval_count'],
    ['interval_count -1', withField('interval_count', -1), 'interval_count'],
    ['interval_count 1.5', withField('interval_count', 1.5), 'interval_count'],
    ['interval_count as a string', withField('interval_count', '2'), 'interval_count'],
    ['interval_unit unknown', withField('interval_unit', 'Fortnight'), 'interval_unit'],
    ['interval_unit in the wrong case', withField('interval_unit', 'day'), 'interval_unit'],
    ['interval_unit plural', withField('interval_unit', 'Days'), 'interval_unit'],
    ['start_date without a time zone', withField('start_date', '2026-11-21T10:30:00'), 'start_date'],
    ['start_date an impossible day', withField('start_date', '2026-02-30T00:00:00Z'), 'start_date'],
    ['start_date an impossible hour', withField('start_date', '2026-02-10T24:00:00Z'), 'start_date'],
    ['start_date a date only', withField('start_date', '2026-11-21'), 'start_date'],
    ['start_date without seconds', withField('start_date', '2026-11-21T09:30Z'), 'start_date'],
    ['start_date past year 9999 in UTC', withField('start_date', '9999-12-31T23:59:59-23:59'), 'start_date'],
    ['start_date before year 1900 in UTC', withField('start_date', '1900-01-01T00:59:59+01:00'), 'start_date'],
    ['start_date in words', withField('start_date', 'yesterday'), 'start_date'],
    ['start_date a number', withField('start_date', 1_790_000_000_000), 'start_date'],
    ['start_date null', withField('start_date', null), 'start_date'],
    ['end_date without a time zone', withField('end_date', '2027-01-01T00:00:00'), 'end_date'],
    ['end_date invalid', withField('end_date', '2027-13-01T00:00:00Z'), 'end_date'],
    ['end_date before start_date', () => ({ ...valid(), start_date: '2026-06-01T00:00:00Z', end_date: '2026-05-31T23:59:59Z' }), 'end_date'],
    ['end_date before start_date across time zones', () => ({ ...valid(), start_date: '2026-06-01T00:00:00Z', end_date: '2026-06-01T01:00:00+02:00' }), 'end_date'],
    ['end_date before the default start_date (now)', withField('end_date', '2000-01-01T00:00:00Z'), 'end_date'],
    ['client_id empty', withField('client_id', ''), 'client_id'],
    ['client_id null', withField('client_id', null), 'client_id'],
    ['client_id not a string', withField('client_id', 12), 'client_id'],
    ['client_id malformed', withField('client_id', 'acme'), 'client_id'],
    ['client_id naming nothing', withField('client_id', UNKNOWN_CLIENT_ID), 'client_id'],
    ['client_id of another kind', withField('client_id', UNKNOWN_PROJECT_ID), 'client_id'],
    ['client_id too long', withField('client_id', `cli_${'A'.repeat(100)}`), 'client_id'],
    ['an unknown field', withField('priority', 'high'), 'priority'],
    ['workspace_id (read-only)', withField('workspace_id', 'ws-other'), 'workspace_id'],
    ['id (read-only)', withField('id', UNKNOWN_PROJECT_ID), 'id'],
    ['created_at (read-only)', withField('created_at', '2026-01-01T00:00:00Z'), 'created_at'],
  ])('refuses %s', async (_name, body, param) => {
    const error = await expectRefused(body(), [param]);
    expect(error.param).toBe(param);
  });

  it('says what is wrong in words an integrator can act on', async () => {
    expect((await expectRefused(without('name')(), ['name'])).message).toMatch(/name.*required/);
    expect((await expectRefused(withField('hourly_rate', -1)(), ['hourly_rate'])).message).toMatch(/hourly_rate.*non-negative/);
    expect((await expectRefused(withField('interval_count', 1.5)(), ['interval_count'])).message).toMatch(/interval_count.*positive integer/);
    expect((await expectRefused(withField('billing_type', 'weekly')(), ['billing_type'])).message).toMatch(
      /Weekly, BiMonthly, Monthly, CreditBased, Retainer, ProjectBased/,
    );
    expect((await expectRefused(withField('start_date', '2026-11-21T10:30:00')(), ['start_date'])).message).toMatch(/time zone/);
    expect(
      (await expectRefused({ ...valid(), start_date: '2026-06-01T00:00:00Z', end_date: '2026-05-01T00:00:00Z' }, ['end_date'])).message,
    ).toMatch(/end_date.*start_date/);
  });

  it('refuses a client of another workspace exactly as a client that does not exist', async () => {
    const other = await workspace();
    const theirs = await createClient(other.api);
    const foreign = await expectRefused({ ...valid(), client_id: theirs.id }, ['client_id']);
    const missing = await expectRefused({ ...valid(), client_id: UNKNOWN_CLIENT_ID }, ['client_id']);
    expect(foreign.message).toBe(missing.message.replaceAll(UNKNOWN_CLIENT_ID, theirs.id));
    expect(foreign.message).not.toMatch(/another|other workspace|forbidden|access/i);
    // Their client did not get a project either: it can still be deleted.
    expect((await other.api.delete(`/clients/${theirs.id}`)).status).toBe(200);
  });

  it('refuses a client that was deleted', async () => {
    const gone = await createClient(ws.api, { company_name: 'Gone' });
    expect((await ws.api.delete(`/clients/${gone.id}`)).status).toBe(200);
    await expectRefused({ ...valid(), client_id: gone.id }, ['client_id']);
  });

  it('lists every failing field in one response, param naming the first', async () => {
    await expectRefused(
      {
        name: '',
        billing_type: 'weekly',
        status: 'active',
        hourly_rate: -1,
        fixed_price: '10',
        amount: -2,
        interval_count: 1.5,
        interval_unit: 'day',
        start_date: '2026-02-30T00:00:00Z',
        end_date: '2026-11-21T10:30:00',
        priority: 'high',
      },
      ['name', 'client_id', 'billing_type', 'status', 'hourly_rate', 'fixed_price', 'amount', 'interval_count', 'interval_unit', 'start_date', 'end_date', 'priority'],
    );
    await expectRefused({}, ['name', 'client_id', 'billing_type']);
    // end_date before start_date is a failing field too, listed beside the others.
    await expectRefused({ ...valid(), name: ' ', start_date: '2026-06-01T00:00:00Z', end_date: '2026-05-31T23:59:59Z' }, ['name', 'end_date']);
  });

});

// -------------------------------------------------------------------------------------------

describe('retrieve a project', () => {
  it('returns 200 and the object as created', async () => {
    const project = await createProject(shared.api, sharedClient.id, { description: 'd', hourly_rate: 99.99 });
    const response = await shared.api.get(`/projects/${project.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(project);
    requestIdOf(response);
  });

  it.each([
    ['an unknown id', UNKNOWN_PROJECT_ID],
    ['a malformed id', 'not-an-id'],
    ['an id of another kind', UNKNOWN_CLIENT_ID],
  ])('answers 404 not_found for %s', async (_name, id) => {
    const error = expectError(await shared.api.get(`/projects/${id}`), 404, 'not_found');
    expect(error.message).toContain(id);
  });

  it('answers 404 for a real client id used as a project id', async () => {
    expectError(await shared.api.get(`/projects/${sharedClient.id}`), 404, 'not_found');
  });

  it('answers 404 for a project of another workspace', async () => {
    const other = await workspace();
    const theirs = await createProject(other.api, (await createClient(other.api)).id);
    expectError(await shared.api.get(`/projects/${theirs.id}`), 404, 'not_found');
  });
});

// -------------------------------------------------------------------------------------------

describe('update a project', () => {
  const full = () => ({
    name: 'Full project',
    description: 'All the fields',
    status: 'ACTIVE',
    billing_type: 'CreditBased',
    hourly_rate: 120,
    fixed_price: 5000,
    amount: 100,
    interval_count: 2,
    interval_unit: 'Week',
    start_date: '2026-01-01T00:00:00Z',
    end_date: '2026-12-31T00:00:00Z',
  });

  it('changes only the fields given and returns the whole updated object', async () => {
    const project = await createProject(shared.api, sharedClient.id, full());
    const response = await shared.api.patch(`/projects/${project.id}`, { name: 'Renamed', hourly_rate: 130.25 });
    expect(response.status).toBe(200);
    requestIdOf(response);
    expect(Object.keys(response.body).sort()).toEqual(PROJECT_FIELDS);
    expect(response.body).toEqual({ ...project, name: 'Renamed', hourly_rate: 130.25, updated_at: expect.stringMatching(TIMESTAMP) });
    expect(Date.parse(response.body.updated_at)).toBeGreaterThan(Date.parse(project.updated_at));
    expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(response.body);
  });

  it('changes every updatable field, timestamps normalised', async () => {
    const project = await createProject(shared.api, sharedClient.id);
    const patch = {
      name: 'All new',
      description: 'New description',
      status: 'ON_HOLD',
      billing_type: 'BiMonthly',
      hourly_rate: 1,
      fixed_price: 2,
      amount: 3,
      interval_count: 4,
      interval_unit: 'Year',
      start_date: '2030-01-01T12:00:00+02:00',
      end_date: '2031-01-01T12:00:00-02:00',
    };
    const response = await shared.api.patch(`/projects/${project.id}`, patch);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...project,
      ...patch,
      start_date: '2030-01-01T10:00:00.000Z',
      end_date: '2031-01-01T14:00:00.000Z',
      updated_at: response.body.updated_at,
    });
    expect(response.body.created_at).toBe(project.created_at);
  });

  it('moves updated_at strictly forward on every change, even for quick successive PATCHes', async () => {
    const project = await createProject(shared.api, sharedClient.id);
    const stamps = [project.updated_at as string];
    for (let i = 0; i < 5; i++) {
      const response = await shared.api.patch(`/projects/${project.id}`, { hourly_rate: i });
      expect(response.status).toBe(200);
      expect(response.body.updated_at).toMatch(TIMESTAMP);
      expect(response.body.created_at).toBe(project.created_at);
      stamps.push(response.body.updated_at);
    }
    for (let i = 1; i < stamps.length; i++) expect(Date.parse(stamps[i]!)).toBeGreaterThan(Date.parse(stamps[i - 1]!));
  });

  it('applies simultaneous PATCHes one after the other, each with its own later updated_at', async () => {
    const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-01-01T00:00:00Z' });
    // Half of them carry an end_date, whose check against the stored start_date rides on the same write.
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        shared.api.patch(`/projects/${project.id}`, i % 2 ? { hourly_rate: i } : { end_date: `2027-01-${String(i + 1).padStart(2, '0')}T00:00:00Z` }),
      ),
    );
    expect(responses.map((r) => r.status), JSON.stringify(responses.map((r) => r.body))).toEqual(Array(10).fill(200));
    const stamps = responses.map((r) => Date.parse(r.body.updated_at));
    expect(new Set(stamps).size).toBe(10);
    for (const stamp of stamps) expect(stamp).toBeGreaterThan(Date.parse(project.updated_at));
    const last = responses.reduce((a, b) => (Date.parse(a.body.updated_at) > Date.parse(b.body.updated_at) ? a : b)).body;
    expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(last);
  });

  it('clears the nullable fields with null', async () => {
    const project = await createProject(shared.api, sharedClient.id, full());
    const response = await shared.api.patch(`/projects/${project.id}`, {
      description: null,
      hourly_rate: null,
      fixed_price: null,
      amount: null,
      interval_count: null,
      interval_unit: null,
      end_date: null,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...project,
      description: null,
      hourly_rate: null,
      fixed_price: null,
      amount: null,
      interval_count: null,
      interval_unit: null,
      end_date: null,
      updated_at: response.body.updated_at,
    });
    expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(response.body);
  });

  it('returns 200 and the unchanged object for an empty body', async () => {
    const project = await createProject(shared.api, sharedClient.id, full());
    const response = await shared.api.patch(`/projects/${project.id}`, {});
    expect(response.status).toBe(200);
    expect(response.body).toEqual(project);
  });

  describe('dates', () => {
    it('accepts an end_date after the stored start_date, and on it', async () => {
      const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z' });
      const later = await shared.api.patch(`/projects/${project.id}`, { end_date: '2026-03-02T00:00:00+01:00' });
      expect(later.status).toBe(200);
      expect(later.body).toMatchObject({ start_date: '2026-03-01T00:00:00.000Z', end_date: '2026-03-01T23:00:00.000Z' });
      const same = await shared.api.patch(`/projects/${project.id}`, { end_date: '2026-03-01T00:00:00Z' });
      expect(same.status).toBe(200);
      expect(same.body.end_date).toBe('2026-03-01T00:00:00.000Z');
    });

    it('refuses an end_date before the stored start_date, changing nothing', async () => {
      const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z' });
      const error = expectInvalid(await shared.api.patch(`/projects/${project.id}`, { end_date: '2026-02-28T23:59:59Z' }), ['end_date']);
      expect(error.message).toMatch(/end_date.*start_date/);
      // Also when another, valid, field comes with it.
      expectInvalid(await shared.api.patch(`/projects/${project.id}`, { name: 'Not applied', end_date: '2026-02-01T00:00:00Z' }), ['end_date']);
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(project);
    });

    it('refuses an end_date before the default start_date (the creation time)', async () => {
      const project = await createProject(shared.api, sharedClient.id);
      expectInvalid(await shared.api.patch(`/projects/${project.id}`, { end_date: '2001-01-01T00:00:00Z' }), ['end_date']);
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(project);
    });

    it('refuses a start_date after the stored end_date, changing nothing', async () => {
      const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z', end_date: '2026-04-01T00:00:00Z' });
      const error = expectError(await shared.api.patch(`/projects/${project.id}`, { start_date: '2026-04-01T00:00:01Z' }), 400, 'invalid_request');
      expect(error.param).toBe('start_date');
      expect(error.message).toBe('start_date must not be after end_date');
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(project);
    });

    it('accepts a start_date before the stored end_date, and any start_date when there is no end_date', async () => {
      const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z', end_date: '2026-04-01T00:00:00Z' });
      const earlier = await shared.api.patch(`/projects/${project.id}`, { start_date: '2026-04-01T00:00:00Z' });
      expect(earlier.status).toBe(200);
      expect(earlier.body).toMatchObject({ start_date: '2026-04-01T00:00:00.000Z', end_date: '2026-04-01T00:00:00.000Z' });

      const open = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z' });
      const moved = await shared.api.patch(`/projects/${open.id}`, { start_date: '2099-01-01T00:00:00Z' });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ start_date: '2099-01-01T00:00:00.000Z', end_date: null });
    });

    it('moves both dates in one PATCH, checking them against each other, not the stored ones', async () => {
      const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z', end_date: '2026-04-01T00:00:00Z' });
      const moved = await shared.api.patch(`/projects/${project.id}`, { start_date: '2027-01-01T00:00:00Z', end_date: '2027-02-01T00:00:00Z' });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ start_date: '2027-01-01T00:00:00.000Z', end_date: '2027-02-01T00:00:00.000Z' });

      const before = moved.body;
      expectInvalid(await shared.api.patch(`/projects/${project.id}`, { start_date: '2028-01-01T00:00:00Z', end_date: '2027-12-31T00:00:00Z' }), ['end_date']);
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(before);
    });

    it('refuses both dates out of order as a failing field of the body: before If-Match is read or the project looked up', async () => {
      const project = await createProject(shared.api, sharedClient.id);
      const reversed = { start_date: '2028-01-01T00:00:00Z', end_date: '2027-12-31T00:00:00Z' };
      const patch = (id: string, headers: Record<string, string> = {}) => call('PATCH', `/api/v1/projects/${id}`, { token: shared.token, body: reversed, headers });
      for (const refused of [await patch(project.id, { 'If-Match': 'not a tag' }), await patch(project.id, { 'If-Match': '"7"' }), await patch(UNKNOWN_PROJECT_ID)]) {
        expect(expectInvalid(refused, ['end_date']).message).toBe('end_date must not be before start_date');
      }
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(project);
    });

    it('accepts a start_date after the old end_date when end_date is cleared in the same PATCH', async () => {
      const project = await createProject(shared.api, sharedClient.id, { start_date: '2026-03-01T00:00:00Z', end_date: '2026-04-01T00:00:00Z' });
      const response = await shared.api.patch(`/projects/${project.id}`, { start_date: '2026-05-01T00:00:00Z', end_date: null });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ start_date: '2026-05-01T00:00:00.000Z', end_date: null });
    });

    it('refuses invalid timestamps', async () => {
      const project = await createProject(shared.api, sharedClient.id);
      expectInvalid(await shared.api.patch(`/projects/${project.id}`, { start_date: '2026-11-21T10:30:00' }), ['start_date']);
      expectInvalid(await shared.api.patch(`/projects/${project.id}`, { end_date: '2026-02-30T00:00:00Z' }), ['end_date']);
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(project);
    });
  });

  describe('refused updates change nothing', () => {
    let project: Record<string, any>;
    beforeAll(async () => {
      project = await createProject(shared.api, sharedClient.id, full());
    });

    async function expectRefusedUpdate(body: unknown, params: string[]) {
      const error = expectInvalid(await shared.api.patch(`/projects/${project.id}`, body), params);
      expect((await shared.api.get(`/projects/${project.id}`)).body).toEqual(project);
      return error;
    }

    it.each<[string, Record<string, unknown>, string]>([
      ['name null', { name: null }, 'name'],
      ['billing_type null', { billing_type: null }, 'billing_type'],
      ['status null', { status: null }, 'status'],
      ['start_date null', { start_date: null }, 'start_date'],
      ['name blank', { name: '' }, 'name'],
      ['name over 200 characters', { name: 'x'.repeat(201) }, 'name'],
      ['description blank', { description: ' ' }, 'description'],
      ['billing_type in the wrong case', { billing_type: 'weekly' }, 'billing_type'],
      ['status unknown', { status: 'DONE' }, 'status'],
      ['status in the wrong case', { status: 'completed' }, 'status'],
      ['hourly_rate negative', { hourly_rate: -1 }, 'hourly_rate'],
      ['hourly_rate as a string', { hourly_rate: '10' }, 'hourly_rate'],
      ['fixed_price negative', { fixed_price: -1 }, 'fixed_price'],
      ['amount negative', { amount: -1 }, 'amount'],
      ['interval_count 0', { interval_count: 0 }, 'interval_count'],
      ['interval_count 1.5', { interval_count: 1.5 }, 'interval_count'],
      ['interval_unit in the wrong case', { interval_unit: 'month' }, 'interval_unit'],
    ])('refuses %s', async (_name, body, param) => {
      const error = await expectRefusedUpdate(body, [param]);
      expect(error.param).toBe(param);
    });

    it('refuses client_id, whatever its value, with param client_id', async () => {
      const otherClient = await createClient(shared.api, { company_name: 'Other client' });
      for (const clientId of [project.client_id, otherClient.id, UNKNOWN_CLIENT_ID, null, 'nope']) {
        const error = await expectRefusedUpdate({ client_id: clientId }, ['client_id']);
        expect(error.param).toBe('client_id');
      }
      // Also alongside valid changes, which are then not applied.
      await expectRefusedUpdate({ name: 'Moved', client_id: otherClient.id }, ['client_id']);
      expect(idsOf(await listAll(shared.api, `&client_id=${otherClient.id}`))).toEqual([]);
    });

    it('lists every failing field, param naming the first', async () => {
      await expectRefusedUpdate(
        { name: null, billing_type: 'x', hourly_rate: -1, interval_count: 0, end_date: 'never', client_id: UNKNOWN_CLIENT_ID, priority: 1 },
        ['name', 'billing_type', 'hourly_rate', 'interval_count', 'end_date', 'client_id', 'priority'],
      );
      await expectRefusedUpdate({ hourly_rate: -1, start_date: '2026-06-01T00:00:00Z', end_date: '2026-06-01T01:00:00+02:00' }, ['hourly_rate', 'end_date']);
    });

  });

  it.each([
    ['an unknown id', UNKNOWN_PROJECT_ID],
    ['a malformed id', 'nope'],
    ['an id of another kind', UNKNOWN_CLIENT_ID],
  ])('answers 404 for %s', async (_name, id) => {
    expectError(await shared.api.patch(`/projects/${id}`, { name: 'Ghost' }), 404, 'not_found');
    expectError(await shared.api.patch(`/projects/${id}`, { end_date: '2030-01-01T00:00:00Z' }), 404, 'not_found');
    expectError(await shared.api.patch(`/projects/${id}`, {}), 404, 'not_found');
  });

  it('answers 404 for a project of another workspace, and leaves it unchanged', async () => {
    const other = await workspace();
    const theirs = await createProject(other.api, (await createClient(other.api)).id);
    expectError(await shared.api.patch(`/projects/${theirs.id}`, { name: 'Hijacked' }), 404, 'not_found');
    expect((await other.api.get(`/projects/${theirs.id}`)).body).toEqual(theirs);
  });

  it('moves the project between the status lists, also within its client', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const otherClient = await createClient(api, { company_name: 'Other' });
    const project = await createProject(api, client.id);
    const sibling = await createProject(api, client.id, { name: 'Sibling' });
    const elsewhere = await createProject(api, otherClient.id, { name: 'Elsewhere' });

    expect(idsOf(await listAll(api, '&status=ACTIVE'))).toEqual([elsewhere.id, sibling.id, project.id]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}&status=ACTIVE`))).toEqual([sibling.id, project.id]);

    const completed = await api.patch(`/projects/${project.id}`, { status: 'COMPLETED' });
    expect(completed.status).toBe(200);
    expect(completed.body.status).toBe('COMPLETED');

    expect(idsOf(await listAll(api, '&status=ACTIVE'))).toEqual([elsewhere.id, sibling.id]);
    expect(idsOf(await listAll(api, '&status=COMPLETED'))).toEqual([project.id]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}&status=ACTIVE`))).toEqual([sibling.id]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}&status=COMPLETED`))).toEqual([project.id]);
    expect(idsOf(await listAll(api, `&client_id=${otherClient.id}&status=COMPLETED`))).toEqual([]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}`))).toEqual([sibling.id, project.id]);

    expect((await api.patch(`/projects/${project.id}`, { status: 'CANCELLED' })).status).toBe(200);
    expect(idsOf(await listAll(api, '&status=COMPLETED'))).toEqual([]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}&status=COMPLETED`))).toEqual([]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}&status=CANCELLED`))).toEqual([project.id]);

    // The lists show the current object, not a stale copy.
    const renamed = (await api.patch(`/projects/${project.id}`, { name: 'Cancelled and renamed' })).body;
    expect(await listAll(api, `&client_id=${client.id}&status=CANCELLED`)).toEqual([renamed]);
    expect(await listAll(api, '&status=CANCELLED')).toEqual([renamed]);
  });

  it('finds a renamed project by its new name, not its old one', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id, { name: 'Alpha Redesign' });
    expect(idsOf(await listAll(api, '&search=alpha'))).toEqual([project.id]);
    expect((await api.patch(`/projects/${project.id}`, { name: 'Beta Launch' })).status).toBe(200);
    expect(idsOf(await listAll(api, '&search=alpha'))).toEqual([]);
    expect(idsOf(await listAll(api, '&search=BETA'))).toEqual([project.id]);
    expect(idsOf(await listAll(api, `&search=launch&client_id=${client.id}`))).toEqual([project.id]);
  });
});

// -------------------------------------------------------------------------------------------

describe('delete a project', () => {
  it('returns 200 with the delete result, then the project is gone', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const kept = await createProject(api, client.id, { name: 'Kept' });

    const response = await api.delete(`/projects/${project.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'project', id: project.id, deleted: true });
    requestIdOf(response);

    expectError(await api.get(`/projects/${project.id}`), 404, 'not_found');
    expectError(await api.delete(`/projects/${project.id}`), 404, 'not_found');
    expectError(await api.patch(`/projects/${project.id}`, { name: 'Zombie' }), 404, 'not_found');
    expect(idsOf(await listAll(api))).toEqual([kept.id]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}`))).toEqual([kept.id]);
    expect(idsOf(await listAll(api, '&status=ACTIVE'))).toEqual([kept.id]);
    expect(idsOf(await listAll(api, `&client_id=${client.id}&status=ACTIVE`))).toEqual([kept.id]);
    expect((await api.get(`/projects/${kept.id}`)).body).toEqual(kept);

    // The deleted project no longer blocks its client; the kept one still does.
    expect(expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict').message).toMatch(/1 project\b/);
  });

  it.each([
    ['an unknown id', UNKNOWN_PROJECT_ID],
    ['a malformed id', 'nope'],
    ['an id of another kind', UNKNOWN_CLIENT_ID],
  ])('answers 404 for %s', async (_name, id) => {
    expectError(await shared.api.delete(`/projects/${id}`), 404, 'not_found');
  });

  it('answers 404 for a project of another workspace and keeps it', async () => {
    const other = await workspace();
    const theirs = await createProject(other.api, (await createClient(other.api)).id);
    expectError(await shared.api.delete(`/projects/${theirs.id}`), 404, 'not_found');
    expect((await other.api.get(`/projects/${theirs.id}`)).body).toEqual(theirs);
  });

  it('refuses (409) while time entries are logged against it, keeps it, and deletes it once they are gone', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const entries = [await logTime(api, { project_id: project.id }), await logTime(api, { project_id: project.id })];

    const error = expectError(await api.delete(`/projects/${project.id}`), 409, 'conflict');
    expect(error.message).toMatch(/2 time entries/);
    expect(error.message).toContain(project.id);
    expect((await api.get(`/projects/${project.id}`)).body).toEqual(project);
    expect(idsOf(await listAll(api))).toEqual([project.id]);

    expect((await api.delete(`/time_entries/${entries[0].id}`)).status).toBe(200);
    expect(expectError(await api.delete(`/projects/${project.id}`), 409, 'conflict').message).toMatch(/1 time entry\b/);
    expect((await api.delete(`/time_entries/${entries[1].id}`)).status).toBe(200);

    const response = await api.delete(`/projects/${project.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'project', id: project.id, deleted: true });
    expectError(await api.get(`/projects/${project.id}`), 404, 'not_found');

    // Its client is now free of projects and entries, and can go too.
    expect((await api.delete(`/clients/${client.id}`)).body).toEqual({ object: 'client', id: client.id, deleted: true });
  });

  it('is not blocked by time entries of its client that are not on the project', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    const other = await createProject(api, client.id, { name: 'Other' });
    await logTime(api, { client_id: client.id });
    await logTime(api, { project_id: other.id });
    expect((await api.delete(`/projects/${project.id}`)).status).toBe(200);
    expectError(await api.delete(`/projects/${other.id}`), 409, 'conflict');
  });

  it('the refused delete of a project leaves it fully usable', async () => {
    const { api } = await workspace();
    const client = await createClient(api);
    const project = await createProject(api, client.id);
    await logTime(api, { project_id: project.id });
    expectError(await api.delete(`/projects/${project.id}`), 409, 'conflict');
    const updated = await api.patch(`/projects/${project.id}`, { status: 'COMPLETED' });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toBe('COMPLETED');
    // and its client is still blocked by it
    expect(expectError(await api.delete(`/clients/${client.id}`), 409, 'conflict').message).toMatch(/1 project\b/);
  });
});
