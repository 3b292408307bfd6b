import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/core/errors.ts';
import { parseOrThrow } from '../../shared/model/parse.ts';
import { LIMITS } from '../../shared/core/field-limits.ts';
import { codePointLength, hasAtMostDecimals, hasVisibleCharacter, instantOf } from '../../shared/model/fields.ts';
import { clientSchemas as client, projectSchemas as project, webhookEndpointSchemas as webhookEndpoint } from '../../shared/model/resources.ts';
import { EVENT_TYPES } from '../../shared/model/event-types.ts';
import { ListEventsQuery } from '../../shared/api/event-schemas.ts';

const CreateClientBody = client.create;
const UpdateClientBody = client.update;
const ListClientsQuery = client.listQuery;
const CreateProjectBody = project.create;
const UpdateProjectBody = project.update;

function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('client schemas', () => {
  it('applies the defaults of the spec', () => {
    const out = parseOrThrow(CreateClientBody, { company_name: 'Acme', company_email: 'a@acme.test' });
    expect(out).toMatchObject({ status: 'LEAD', language: 'ENGLISH' });
  });

  it('reports every failing field, the first as param', () => {
    const error = refusal(() =>
      parseOrThrow(CreateClientBody, { company_email: 'nope', website: 'not a url', status: 'lead', language: 'GERMAN', extra: 1 }),
    );
    expect(error.status).toBe(400);
    expect(error.errors?.map((e) => e.param).sort()).toEqual(['company_email', 'company_name', 'extra', 'language', 'status', 'website']);
    expect(error.param).toBe(error.errors?.[0]?.param);
    expect(error.errors?.find((e) => e.param === 'company_name')?.message).toBe('company_name is required');
    expect(error.errors?.find((e) => e.param === 'extra')?.message).toBe('extra is not a known field');
  });

  it('refuses non-web URLs, blank and over-long names', () => {
    expect(refusal(() => parseOrThrow(CreateClientBody, { company_name: 'A', company_email: 'a@b.co', website: 'ftp://x.test' })).param).toBe('website');
    expect(refusal(() => parseOrThrow(CreateClientBody, { company_name: '   ', company_email: 'a@b.co' })).param).toBe('company_name');
    expect(refusal(() => parseOrThrow(CreateClientBody, { company_name: 'x'.repeat(201), company_email: 'a@b.co' })).param).toBe('company_name');
  });

  it('lets PATCH clear nullable fields but not required ones', () => {
    expect(parseOrThrow(UpdateClientBody, { website: null, tps_number: null })).toEqual({ website: null, tps_number: null });
    const error = refusal(() => parseOrThrow(UpdateClientBody, { company_name: null }));
    expect(error.errors).toEqual([{ param: 'company_name', message: 'company_name cannot be null' }]);
  });
});

describe('project schemas', () => {
  const valid = { name: 'Site', client_id: 'cli_1', billing_type: 'Retainer' };

  it('normalises timestamps to UTC with milliseconds', () => {
    const out = parseOrThrow(CreateProjectBody, { ...valid, start_date: '2026-11-21T10:30:00+01:00' });
    expect(out.start_date).toBe('2026-11-21T09:30:00.000Z');
  });

  it('refuses timestamps without a zone, and impossible dates', () => {
    for (const start_date of ['2026-11-21T10:30:00', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', 'yesterday', '2026-11-21']) {
      expect(refusal(() => parseOrThrow(CreateProjectBody, { ...valid, start_date })).param).toBe('start_date');
    }
  });

  it('enforces the numeric rules of the spec', () => {
    for (const [field, value] of [
      ['hourly_rate', -1],
      ['fixed_price', '10'],
      ['amount', -0.01],
      ['interval_count', 0],
      ['interval_count', 1.5],
      ['interval_unit', 'Fortnight'],
      ['billing_type', 'weekly'],
    ] as const) {
      expect(refusal(() => parseOrThrow(CreateProjectBody, { ...valid, [field]: value })).param).toBe(field);
    }
    expect(parseOrThrow(CreateProjectBody, { ...valid, hourly_rate: 0, interval_count: 1 })).toMatchObject({ hourly_rate: 0, interval_count: 1 });
  });

  it('refuses a change of client on PATCH', () => {
    const error = refusal(() => parseOrThrow(UpdateProjectBody, { client_id: 'cli_2' }));
    expect(error.param).toBe('client_id');
  });
});

describe('list queries', () => {
  it('defaults limit to 25 and refuses anything outside 1..100', () => {
    expect(parseOrThrow(ListClientsQuery, {}).limit).toBe(25);
    expect(parseOrThrow(ListClientsQuery, { limit: '100' }).limit).toBe(100);
    for (const limit of ['0', '101', '-1', '1.5', 'abc', '', '1000']) {
      expect(refusal(() => parseOrThrow(ListClientsQuery, { limit }, 'query parameter')).param).toBe('limit');
    }
  });

  it('names unknown query parameters as such', () => {
    const error = refusal(() => parseOrThrow(ListClientsQuery, { client: 'x' }, 'query parameter'));
    expect(error.errors).toEqual([{ param: 'client', message: 'client is not a known query parameter' }]);
  });
});

describe('field rules found by a hostile caller', () => {
  it('money: at most 4 decimals, which also keeps values inside DynamoDB number range', () => {
    for (const n of [0, 12.5, 0.0001, 130.25, 999_999_999.9999, 1_000_000_000]) expect(hasAtMostDecimals(n, 4), String(n)).toBe(true);
    for (const n of [0.30000000000000004, 1e-131, 5e-324, 0.00015]) expect(hasAtMostDecimals(n, 4), String(n)).toBe(false);
  });

  it('timestamps: RFC 3339 with seconds, UTC year 1900..9999, as instants', () => {
    expect(instantOf('2026-11-21T10:30:00+01:00')).toBe(Date.UTC(2026, 10, 21, 9, 30));
    expect(instantOf('9999-12-31T23:59:59.999Z')).toBe(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    expect(instantOf('1900-01-01T00:00:00Z')).toBe(Date.UTC(1900, 0, 1));
    for (const s of ['9999-12-31T23:59:59-23:59', '1900-01-01T00:30:00+01:00', '2026-11-21T10:30Z', '2026-11-21T10:30:00', '2026-11-21T10:30:00+24:00', '2026-02-29T00:00:00Z']) {
      expect(instantOf(s), s).toBeUndefined();
    }
  });

  it('text: needs a visible character; lengths count code points', () => {
    for (const s of ['\u200b\u200b\u2060', ' \t', '\ufeff', '\u3164', '\u0301']) expect(hasVisibleCharacter(s), JSON.stringify(s)).toBe(false);
    for (const s of ['a', 'é', '\u{1F600}', '-']) expect(hasVisibleCharacter(s), s).toBe(true);
    expect(codePointLength('\u{1F600}'.repeat(150))).toBe(150);
    expect(parseOrThrow(CreateClientBody, { company_name: '\u{1F600}'.repeat(150), company_email: 'a@b.co' }).company_name).toHaveLength(300);
    expect(refusal(() => parseOrThrow(CreateClientBody, { company_name: '\u200b\u2060', company_email: 'a@b.co' })).param).toBe('company_name');
  });
});

describe('webhook endpoint schemas', () => {
  const create = (body: Record<string, unknown>) => parseOrThrow(webhookEndpoint.create, { url: 'https://hooks.example.com/in', ...body });
  const refusedParam = (body: Record<string, unknown>) => refusal(() => create(body)).errors?.[0];

  it('take a list of event types, or "*" alone, and default to enabled', () => {
    expect(create({ enabled_events: ['client.created', 'project.deleted'] })).toMatchObject({ enabled_events: ['client.created', 'project.deleted'], status: 'enabled' });
    expect(create({ enabled_events: ['*'], status: 'disabled' })).toMatchObject({ enabled_events: ['*'], status: 'disabled' });
    expect(create({ enabled_events: [...EVENT_TYPES] }).enabled_events).toEqual([...EVENT_TYPES]);
    const invoiceTypes = ['invoice.created', 'invoice.updated', 'invoice.deleted', 'invoice.finalized', 'invoice.paid', 'invoice.voided'];
    expect(create({ enabled_events: invoiceTypes }).enabled_events).toEqual(invoiceTypes);
    expect(parseOrThrow(ListEventsQuery, { type: 'invoice.voided' }).type).toBe('invoice.voided');
  });

  it('refuse an empty list, an unknown type, "*" beside a type, a repeated type and a status outside the two', () => {
    for (const [body, message] of [
      [{ enabled_events: [] }, 'at least one event type'],
      [{ enabled_events: ['client.archived'] }, 'may hold only'],
      [{ enabled_events: ['time_entry.archived'] }, 'may hold only'],
      [{ enabled_events: ['*', 'client.created'] }, '["*"] alone'],
      [{ enabled_events: ['client.created', 'client.created'] }, 'must not repeat'],
      [{ enabled_events: 'client.created' }, 'must be an array'],
      [{ enabled_events: ['*'], status: 'paused' }, 'status'],
    ] as const) {
      const detail = refusedParam(body);
      // An item that is not a type is named by its place in the list.
      expect(detail?.param, JSON.stringify(body)).toMatch('status' in body ? /^status$/ : /^enabled_events(\[\d+\])?$/);
      expect(detail?.message, JSON.stringify(body)).toContain(message);
    }
  });

  it('refuse more types than there are, and a PATCH that empties the list', () => {
    expect(refusedParam({ enabled_events: [...EVENT_TYPES, 'client.created'] })?.param).toBe('enabled_events');
    expect(refusal(() => parseOrThrow(webhookEndpoint.update, { enabled_events: [] })).param).toBe('enabled_events');
    expect(parseOrThrow(webhookEndpoint.update, { status: 'disabled' })).toEqual({ status: 'disabled' });
  });
});

describe('events feed query', () => {
  const ULID = '01M80V5Z1BGJ4D4KG6XRMJFSS7';
  const parse = (query: Record<string, string>) => parseOrThrow(ListEventsQuery, query, 'query parameter');
  const refused = (query: Record<string, string>) => refusal(() => parse(query)).errors?.[0];

  it('takes a type, the id of any resource that makes events, and an event id to follow', () => {
    expect(parse({})).toEqual({ limit: LIMITS.pageSizeDefault });
    for (const prefix of ['cli_', 'prj_', 'te_', 'inv_', 'pay_', 'bp_', 'brun_']) expect(parse({ object_id: `${prefix}${ULID}` }).object_id).toBe(`${prefix}${ULID}`);
    expect(parse({ type: 'time_entry.deleted', after: `evt_${ULID}`, limit: '100', cursor: 'c' })).toEqual({ type: 'time_entry.deleted', after: `evt_${ULID}`, limit: 100, cursor: 'c' });
  });

  it('names what each parameter must be', () => {
    expect(refused({ type: 'client.archived' })?.param).toBe('type');
    const objectId = refused({ object_id: `we_${ULID}` });
    expect(objectId).toEqual({ param: 'object_id', message: 'object_id must be the id of a client, project, time entry, invoice, payment, business profile or billing run (cli_…, prj_…, te_…, inv_…, pay_…, bp_…, brun_…)' });
    expect(refused({ object_id: `cli_${ULID}x` })?.param).toBe('object_id');
    expect(refused({ object_id: `xcli_${ULID}` })?.param).toBe('object_id');
    expect(refused({ after: `cli_${ULID}` })).toEqual({ param: 'after', message: 'after must be an event id (evt_…): the id of the last event you read' });
    expect(refused({ after: `evt_${ULID}0` })?.param).toBe('after');
    expect(refused({ after: ` evt_${ULID}` })?.param).toBe('after');
    expect(refused({ since: 'yesterday' })?.param).toBe('since');
  });

  it('documents sync mode on `after`', () => {
    const after = (ListEventsQuery.entries.after as unknown as { wrapped: { pipe: { type: string; metadata?: unknown }[] } }).wrapped.pipe;
    expect(after.find((p) => p.type === 'metadata')?.metadata).toEqual({ description: 'Sync mode: the events after this one, oldest first' });
  });
});
