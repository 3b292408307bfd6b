import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors.ts';
import { parseOrThrow } from '../../shared/schemas/parse.ts';
import { CreateClientBody, CreateProjectBody, ListClientsQuery, UpdateClientBody, UpdateProjectBody } from '../../shared/schemas/resources.ts';

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
