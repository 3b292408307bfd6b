/** What the registry derives from each declaration: schemas, item mapping, guards and names. */
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { describe, expect, it } from 'vitest';
import { declareResource, pluralOf, type AnyResource } from '../../shared/model/declare.ts';
import { dataOf, objectOf } from '../../shared/model/objects.ts';
import { defineFields, responseSchema, withCreate, withListQuery, withUpdate } from '../../shared/model/define.ts';
import { CLIENT_STORED_CURRENCY, RESOURCES, RESOURCE_LIST, clientFields, counterOf, invoiceSchemas, referrersOf, resourceOf } from '../../shared/model/resources.ts';
import { SCHEMAS, SCHEMA_LIST, objectSchema } from '../../shared/model/schemas.ts';
import { SCOPES, ROUTES, isRegistryRoute, routeByOperation, scopeFor } from '../../shared/api/routes.ts';
import { contractOf } from '../../shared/api/operations.ts';
import { DeleteResult, responseSchemas, schemaName } from '../../shared/api/object-schemas.ts';
import { text } from '../../shared/model/fields.ts';

// The resources with their schemas (each is its declaration plus what derives from its fields).
const { client, project, time_entry: timeEntry } = SCHEMAS;
const ok = (schema: v.GenericSchema, input: unknown) => v.safeParse(schema, input);
const CLIENT_ID = 'cli_01M80V5QD5HHXT44J8T6S4HD6W';
const PROJECT_ID = 'prj_01M80V5Z1BGJ4D4KG6XRMJFSS6';
const AT = '2026-11-21T09:00:00.000Z';

describe('names', () => {
  it('derive the type, nouns and schema names from the kind and collection', () => {
    expect([timeEntry.type, timeEntry.noun, pluralOf(timeEntry)]).toEqual(['TIME_ENTRY', 'time entry', 'time entries']);
    expect([client.type, client.noun, pluralOf(client)]).toEqual(['CLIENT', 'client', 'clients']);
    expect(schemaName('time_entry')).toBe('TimeEntry');
    expect(Object.keys(responseSchemas())).toEqual([
      'Client', 'ClientList', 'Project', 'ProjectList', 'TimeEntry', 'TimeEntryList', 'Invoice', 'InvoiceList', 'Payment', 'PaymentList', 'BusinessProfile', 'BillingRun', 'BillingRunList', 'WebhookEndpoint', 'WebhookEndpointList', 'TimeSummary', 'TimeSummaryList', 'BillingRunResult', 'BillingRunResultList', 'EventObject', 'EventList', 'DeleteResult', 'ErrorBody',
    ]);
  });

  it('are unique across resources, and the routes use each resource\'s scopes', () => {
    for (const key of ['kind', 'idPrefix', 'collection', 'type', 'tag'] as const) {
      expect(new Set(RESOURCE_LIST.map((r) => r[key])).size, key).toBe(RESOURCE_LIST.length);
    }
    // Each resource's read and write scopes (a nested one's are its parent's, a billing run's the invoices'), and the events feed's read scope (it has no write).
    const owners = RESOURCE_LIST.filter((r) => r.parent === undefined && r.scopesOf === undefined);
    expect([...SCOPES].sort()).toEqual([...owners.flatMap((r) => [`${r.collection}:read`, `${r.collection}:write`]), 'events:read'].sort());
    for (const route of ROUTES.filter(isRegistryRoute)) {
      const resource: AnyResource = RESOURCES[route.resource];
      const path = resource.parent ? `/api/v1/${resourceOf(resource.parent).collection}/{id}/${resource.collection}` : `/api/v1/${resource.collection}`;
      expect(route.path.startsWith(path), route.operation).toBe(true);
    }
    // The rule the domain names a collection's scopes by (scopeFor: entity.ts) gives every route's declared scope.
    for (const route of ROUTES) {
      if (route.scope === null) continue;
      const declared = route.resource === 'event' || route.resource === 'time_summary' || route.resource === 'billing_run_result' ? undefined : (RESOURCES[route.resource] as AnyResource);
      const collection =
        route.resource === 'event' ? 'events'
        : route.resource === 'time_summary' ? 'time_entries'
        : route.resource === 'billing_run_result' ? 'invoices'
        : declared!.scopesOf ?? resourceOf(declared!.parent ?? route.resource).collection;
      expect(scopeFor(collection, route.action), route.operation).toBe(route.scope);
    }
    expect(ROUTES.filter((r) => r.resource === 'event').map((r) => [r.operation, r.method, r.path, r.scope])).toEqual([
      ['listEvents', 'GET', '/api/v1/events', 'events:read'],
      ['retrieveEvent', 'GET', '/api/v1/events/{id}', 'events:read'],
    ]);
  });

  it('looks resources up by kind, and refuses an unknown one', () => {
    expect(resourceOf('project')).toBe(RESOURCES.project);
    expect(() => resourceOf('refund')).toThrow('Unknown resource refund');
  });
});

describe('declarations', () => {
  it('are the resources of the interface spec, with their prefixes, paths, tags and hints', () => {
    expect(RESOURCE_LIST.map((r) => [r.kind, r.idPrefix, r.collection, r.tag])).toEqual([
      ['client', 'cli_', 'clients', 'Clients'],
      ['project', 'prj_', 'projects', 'Projects'],
      ['time_entry', 'te_', 'time_entries', 'Time entries'],
      ['invoice', 'inv_', 'invoices', 'Invoices'],
      ['payment', 'pay_', 'payments', 'Payments'],
      ['business_profile', 'bp_', 'business_profile', 'Business profile'],
      ['billing_run', 'brun_', 'billing_runs', 'Billing runs'],
      ['webhook_endpoint', 'we_', 'webhook_endpoints', 'Webhook endpoints'],
    ]);
    expect(client.deleteHint).toBe('archive the client instead by setting its status to SLEEPING or LOST');
    expect(project.deleteHint).toBe('close the project instead by setting its status to COMPLETED or CANCELLED');
    expect([client.search, project.search, timeEntry.search]).toEqual(['company_name', 'name', undefined]);
    expect([client.filters, project.filters, timeEntry.filters]).toEqual([['status'], ['status', 'client_id'], ['project_id', 'client_id', 'invoice_id']]);
    expect(timeEntry.createRequiresOneOf).toEqual(['project_id', 'client_id']);
    // Documented in the OpenAPI document as anyOf; the domain enforces it.
    expect((toJsonSchema(timeEntry.create, { errorMode: 'ignore' }) as any).anyOf).toEqual([
      { required: ['project_id'], properties: { project_id: { not: { type: 'null' } } } },
      { required: ['client_id'], properties: { client_id: { not: { type: 'null' } } } },
    ]);
    expect((toJsonSchema(client.create, { errorMode: 'ignore' }) as any).anyOf).toBeUndefined();
  });

  it('take exactly the enumerations of the interface spec', () => {
    const values = (schema: v.GenericSchema, field: string) => (toJsonSchema(schema, { errorMode: 'ignore' }) as any).properties[field];
    expect(values(client.update, 'status').enum).toEqual(['LEAD', 'ACTIVE', 'SLEEPING', 'LOST']);
    expect(values(client.update, 'language').enum).toEqual(['ENGLISH', 'FRENCH']);
    expect(values(project.update, 'status').enum).toEqual(['ACTIVE', 'COMPLETED', 'ON_HOLD', 'CANCELLED']);
    expect(values(project.update, 'billing_type').enum).toEqual(['Weekly', 'BiMonthly', 'Monthly', 'CreditBased', 'Retainer', 'ProjectBased']);
    expect(values(project.update, 'interval_unit').anyOf[0].enum).toEqual(['Day', 'Week', 'Month', 'Year']);
  });

  it('name each field in its own messages', () => {
    // An invoice's bodies are its own (model/invoice-fields.ts): a create names the range, a PATCH the draft's terms.
    const takes = (schema: v.GenericSchema, field: string) => field in (schema as v.ObjectSchema<v.ObjectEntries, undefined>).entries;
    expect(Object.keys((invoiceSchemas.update as unknown as v.ObjectSchema<v.ObjectEntries, undefined>).entries)).toEqual(['memo', 'purchase_order', 'due_date', 'discount_rate', 'tax_rate', 'taxes', 'items']);
    expect(Object.keys((invoiceSchemas.create as unknown as v.ObjectSchema<v.ObjectEntries, undefined>).entries)).toEqual([
      'client_id', 'from', 'to', 'timezone', 'project_ids', 'discount_rate', 'tax_rate', 'taxes', 'items', 'memo', 'purchase_order', 'due_date',
    ]);
    for (const field of ['memo', 'purchase_order', 'due_date', 'discount_rate', 'tax_rate', 'taxes', 'items', 'from', 'to', 'timezone', 'project_ids']) {
      const schema = takes(invoiceSchemas.update, field) ? invoiceSchemas.update : invoiceSchemas.create;
      const issue = v.safeParse(schema, { [field]: { not: 'a value' } }, { abortEarly: false }).issues!.find((i) => v.getDotPath(i) === field)!;
      expect(issue.message.startsWith(`${field} `), `invoice.${field}: ${issue.message}`).toBe(true);
    }
    for (const resource of SCHEMA_LIST) {
      for (const field of resource.fieldNames) {
        if (resource.immutable?.[field] || resource.readOnly?.[field] || !takes(resource.update, field)) continue;
        const out = v.safeParse(resource.update, { [field]: { not: 'a value' } });
        expect(out.success, `${resource.kind}.${field}`).toBe(false);
        expect(out.issues![0].message.startsWith(`${field} `), `${resource.kind}.${field}: ${out.issues![0].message}`).toBe(true);
      }
      for (const field of resource.fieldNames) {
        if (resource.readOnly?.[field] || !takes(resource.create, field)) continue;
        const out = v.safeParse(resource.create, { [field]: { not: 'a value' } }, { abortEarly: false });
        const issue = out.issues!.find((i) => v.getDotPath(i) === field)!;
        expect(issue.message.startsWith(`${field} `), `${resource.kind}.${field}: ${issue.message}`).toBe(true);
      }
    }
  });

  it('say the list query rules in words', () => {
    const first = (schema: v.GenericSchema, input: unknown) => v.safeParse(schema, input).issues![0].message;
    expect(first(client.listQuery, { limit: '0' })).toBe('limit must be an integer from 1 to 100');
    expect(first(client.listQuery, { limit: 'x' })).toBe('limit must be an integer from 1 to 100');
    expect(first(client.listQuery, { limit: '101' })).toBe('limit must be an integer from 1 to 100');
    expect(first(client.listQuery, { cursor: '' })).toBe('cursor must not be empty');
    expect(first(client.listQuery, { cursor: 'x'.repeat(1025) })).toBe('cursor is not valid');
    expect(first(client.listQuery, { search: 1 })).toBe('search must be a string');
  });
});

describe('guards', () => {
  it('are the counters of every resource referencing another', () => {
    expect(referrersOf(client).map((r) => [r.resource.kind, r.field, r.counter])).toEqual([
      ['project', 'client_id', 'project_count'],
      ['time_entry', 'client_id', 'time_entry_count'],
      ['invoice', 'client_id', 'invoice_count'],
    ]);
    expect(referrersOf(project).map((r) => r.counter)).toEqual(['time_entry_count']);
    expect(referrersOf(timeEntry)).toEqual([]);
    expect(counterOf(timeEntry)).toBe('time_entry_count');
  });

  it('name only declared resources', () => {
    for (const r of RESOURCE_LIST) for (const kind of Object.values(r.references ?? {})) expect(() => resourceOf(kind!)).not.toThrow();
  });
});

describe('request schemas', () => {
  it('make plain fields required on create, defaults apply, nullable ones optional', () => {
    const out = ok(client.create, { company_name: 'Acme', company_email: 'a@acme.test' });
    expect(out.success && out.output).toEqual({ company_name: 'Acme', company_email: 'a@acme.test', status: 'LEAD', language: 'ENGLISH', currency: 'USD' });
    expect(ok(client.create, { company_name: 'Acme', company_email: 'a@acme.test', website: null }).success).toBe(true);
    expect(ok(client.create, { company_name: 'Acme' }).success).toBe(false);
    expect(ok(client.create, { company_name: null, company_email: 'a@acme.test' }).success).toBe(false);
  });

  it('leave read-only fields out of create and update, as unknown fields', () => {
    expect(Object.keys(client.create.pipe[0].entries)).not.toContain('relationship_start_date');
    expect(Object.keys(client.update.entries)).not.toContain('relationship_start_date');
    expect(ok(client.create, { company_name: 'A', company_email: 'a@b.co', relationship_start_date: AT }).success).toBe(false);
  });

  it('make every field optional on update, without defaults, nullable ones clearable and the others not', () => {
    const empty = ok(client.update, {});
    expect(empty.success && empty.output).toEqual({});
    expect(ok(client.update, { website: null }).success).toBe(true);
    expect(ok(client.update, { company_name: null }).success).toBe(false);
    expect(ok(client.update, { status: 'LOST' }).success).toBe(true);
  });

  it('refuse an immutable field on update, whatever its value, saying why', () => {
    for (const value of [CLIENT_ID, null, 'x', 1]) {
      const out = ok(project.update, { client_id: value });
      expect(out.success).toBe(false);
      expect(out.issues?.[0].message).toBe('client_id cannot be changed: a project stays with the client it was created for');
    }
    expect(ok(project.create, { name: 'P', client_id: CLIENT_ID, billing_type: 'Monthly' }).success).toBe(true);
  });

  it('take list filters as optional, non-null query parameters, with limit, cursor and search only where declared', () => {
    expect(Object.keys(project.listQuery.entries)).toEqual(['limit', 'cursor', 'status', 'client_id', 'search']);
    expect(Object.keys(timeEntry.listQuery.entries)).toEqual(['limit', 'cursor', 'project_id', 'client_id', 'invoice_id', 'started_from', 'started_to']);
    // An invoice id that is not well-formed names no invoice: a 400 naming it (an unknown one lists nothing).
    expect(ok(timeEntry.listQuery, { invoice_id: 'inv_01M80V5Z1BGJ4D4KG6XRMJFSS7' }).success).toBe(true);
    for (const invoice_id of ['', 'inv_', 'inv_01M80V5Z1BGJ4D4KG6XRMJFSSI', PROJECT_ID, 'inv_01M80V5Z1BGJ4D4KG6XRMJFSS77']) {
      const parsed = ok(timeEntry.listQuery, { invoice_id });
      expect(parsed.success, invoice_id).toBe(false);
      expect(parsed.issues![0].message).toMatch(/^invoice_id /);
    }
    const range = ok(timeEntry.listQuery, { started_from: '2026-11-01T01:00:00+01:00', started_to: '2026-12-01T00:00:00Z' });
    expect(range.success && range.output).toEqual({ limit: 25, started_from: '2026-11-01T00:00:00.000Z', started_to: '2026-12-01T00:00:00.000Z' });
    for (const started_from of ['2026-11-01', '1899-12-31T23:59:59Z', '10000-01-01T00:00:00Z', '']) {
      expect(ok(timeEntry.listQuery, { started_from }).success, started_from).toBe(false);
    }
    const out = ok(timeEntry.listQuery, { project_id: PROJECT_ID });
    expect(out.success && out.output).toEqual({ limit: 25, project_id: PROJECT_ID });
    expect(ok(timeEntry.listQuery, { project_id: '' }).success).toBe(false);
    expect(ok(timeEntry.listQuery, { search: 'x' }).success).toBe(false);
    expect(ok(client.listQuery, { limit: '100' }).success).toBe(true);
    for (const limit of ['0', '101', '1000', '1.5', '', 'abc']) expect(ok(client.listQuery, { limit }).success, limit).toBe(false);
    for (const cursor of ['', 'x'.repeat(1025)]) expect(ok(client.listQuery, { cursor }).success).toBe(false);
    expect(ok(client.listQuery, { cursor: 'x'.repeat(1024) }).success).toBe(true);
  });
});

describe('response schemas', () => {
  const projectObject = {
    object: 'project',
    id: PROJECT_ID,
    name: 'P',
    description: null,
    status: 'ACTIVE',
    billing_type: 'Monthly',
    hourly_rate: null,
    fixed_price: null,
    amount: null,
    interval_count: null,
    interval_unit: null,
    client_id: CLIENT_ID,
    start_date: AT,
    end_date: null,
    workspace_id: 'ws',
    created_at: AT,
    updated_at: AT,
  };

  it('hold every field, references as the referenced id pattern, timestamps in the stored form', () => {
    const schema = objectSchema(project);
    expect(ok(schema, projectObject).success).toBe(true);
    expect(ok(schema, { ...projectObject, client_id: PROJECT_ID }).success).toBe(false);
    expect(ok(schema, { ...projectObject, id: CLIENT_ID }).success).toBe(false);
    expect(ok(schema, { ...projectObject, object: 'client' }).success).toBe(false);
    expect(ok(schema, { ...projectObject, created_at: '2026-11-21T09:00:00Z' }).success).toBe(false);
    expect(ok(schema, { ...projectObject, extra: 1 }).success).toBe(false);
    const { status: _status, ...withoutStatus } = projectObject;
    expect(ok(schema, withoutStatus).success).toBe(false);
  });

  it('keep a nullable reference nullable', () => {
    const entry = { object: 'time_entry', id: 'te_01M80V5Z1BGJ4D4KG6XRMJFSS7', project_id: null, client_id: CLIENT_ID, started_at: AT, duration_minutes: 5, billable: true, billable_rate: null, description: null, invoice_id: null, workspace_id: 'ws', created_at: AT, updated_at: AT };
    expect(ok(objectSchema(timeEntry), entry).success).toBe(true);
    // A read-only field set by the service's own rules answers its own schema: an invoice id, or null.
    expect(ok(objectSchema(timeEntry), { ...entry, invoice_id: 'inv_01M80V5Z1BGJ4D4KG6XRMJFSS7' }).success).toBe(true);
    expect(ok(objectSchema(timeEntry), { ...entry, invoice_id: AT }).success).toBe(false);
    expect(ok(objectSchema(timeEntry), { ...entry, project_id: CLIENT_ID }).success).toBe(false);
    expect(ok(objectSchema(timeEntry), { ...entry, client_id: null }).success).toBe(false);
  });

  it('answer a read-only field as a stored timestamp', () => {
    const schema = objectSchema(client);
    const base = { object: 'client', id: CLIENT_ID, company_name: 'A', company_email: 'a@b.co', company_address: null, website: null, status: 'LEAD', language: 'ENGLISH', currency: 'USD', business_number: null, tps_number: null, tvq_number: null, workspace_id: 'ws', created_at: AT, updated_at: AT };
    expect(ok(schema, { ...base, relationship_start_date: AT }).success).toBe(true);
    expect(ok(schema, { ...base, relationship_start_date: 'yesterday' }).success).toBe(false);
    // An RFC 3339 input is not the stored form: a response always holds UTC with milliseconds.
    expect(ok(schema, { ...base, relationship_start_date: '2026-11-21T09:00:00Z' }).success).toBe(false);
    for (const stamp of [`x${AT}`, `${AT}x`]) expect(ok(schema, { ...base, relationship_start_date: AT, created_at: stamp }).success, stamp).toBe(false);
    expect((toJsonSchema(schema, { errorMode: 'ignore' }) as any).properties.created_at.format).toBe('date-time');
  });

  it('wrap lists in the list envelope, and errors in the error body', () => {
    const { ClientList, ErrorBody: errorBody } = responseSchemas();
    expect(ok(ClientList!, { object: 'list', data: [], has_more: false, next_cursor: null }).success).toBe(true);
    expect(ok(ClientList!, { object: 'lists', data: [], has_more: false, next_cursor: null }).success).toBe(false);
    expect(ok(ClientList!, { object: 'list', data: [], has_more: false, next_cursor: null, extra: 1 }).success).toBe(false);
    expect(ok(ClientList!, { object: 'list', data: [{}], has_more: false, next_cursor: null }).success).toBe(false);
    const error = { type: 'invalid_request', message: 'm', param: 'a', errors: [{ param: 'a', message: 'm' }], request_id: 'r' };
    expect(ok(errorBody!, { error }).success).toBe(true);
    expect(ok(errorBody!, { error: { ...error, type: 'nope' } }).success).toBe(false);
    expect(ok(errorBody!, { error: { ...error, extra: 1 } }).success).toBe(false);
    expect(ok(errorBody!, { error, extra: 1 }).success).toBe(false);
    expect(ok(errorBody!, { error: { ...error, errors: [{ param: 'a', message: 'm', x: 1 }] } }).success).toBe(false);
  });

  it('delete results name one of the kinds', () => {
    for (const kind of ['client', 'project', 'time_entry', 'invoice', 'payment']) expect(ok(DeleteResult, { object: kind, id: 'x', deleted: true }).success).toBe(true);
    expect(ok(DeleteResult, { object: 'refund', id: 'x', deleted: true }).success).toBe(false);
  });
});

describe('item mapping', () => {
  it('stores exactly the declared fields, absent ones null, read-only ones at the creation time', () => {
    const data = dataOf(client, { id: CLIENT_ID, workspaceId: 'ws' }, { company_name: 'A', company_email: 'a@b.co', status: 'LEAD', language: 'ENGLISH', extra: 'dropped' }, AT);
    expect(data).toEqual({
      id: CLIENT_ID,
      company_name: 'A',
      company_email: 'a@b.co',
      company_address: null,
      website: null,
      status: 'LEAD',
      language: 'ENGLISH',
      currency: null,
      business_number: null,
      tps_number: null,
      tvq_number: null,
      relationship_start_date: AT,
      workspace_id: 'ws',
      created_at: AT,
      updated_at: AT,
    });
    expect(dataOf(client, { id: CLIENT_ID, workspaceId: 'ws' }, { relationship_start_date: '1999-01-01T00:00:00.000Z' }, AT).relationship_start_date).toBe(AT);
    expect(dataOf(client, { id: CLIENT_ID, workspaceId: 'ws' }, { website: 'https://a.test' }, AT).website).toBe('https://a.test');
    // A read-only field of the service's own rules is null on create, whatever the input says.
    expect(dataOf(timeEntry, { id: 'te_1', workspaceId: 'ws' }, { invoice_id: 'inv_01M80V5Z1BGJ4D4KG6XRMJFSS7', duration_minutes: 5 }, AT)).toMatchObject({ invoice_id: null, duration_minutes: 5 });
  });

  it('reads an entry stored before invoice_id existed as on no invoice', () => {
    expect(objectOf(timeEntry, { data: { id: 'te_1', duration_minutes: 5 } }).invoice_id).toBeNull();
  });

  it('keeps invoice_id out of the time entry create and update bodies (a 400 naming it)', () => {
    expect(Object.keys(timeEntry.create.entries)).not.toContain('invoice_id');
    expect(Object.keys(timeEntry.update.entries)).not.toContain('invoice_id');
  });

  it('answers the object in the declared order, whatever the stored order, absent fields null', () => {
    const object = objectOf(client, { version: 3, data: { updated_at: AT, workspace_id: 'ws', company_name: 'A', id: CLIENT_ID, created_at: AT, extra: 'x' } });
    expect(Object.keys(object)).toEqual(['object', 'id', ...client.fieldNames, 'workspace_id', 'created_at', 'updated_at']);
    expect(object).toMatchObject({ object: 'client', id: CLIENT_ID, company_name: 'A', website: null, workspace_id: 'ws', created_at: AT, updated_at: AT });
    expect(object).not.toHaveProperty('extra');
    expect(objectOf(client, {}).object).toBe('client');
  });
});

describe('names derived from a declaration', () => {
  it('are its type in keys and its noun in messages; a client stored before currency existed reads as CLIENT_STORED_CURRENCY', () => {
    expect([RESOURCES.time_entry.type, RESOURCES.time_entry.noun]).toEqual(['TIME_ENTRY', 'time entry']);
    expect(RESOURCES.client.storedDefaults?.currency).toBe(CLIENT_STORED_CURRENCY);
  });
});

describe('declareResource and defineFields', () => {
  it('derive a resource from a minimal declaration', () => {
    const declared = declareResource({ kind: 'sticky_note', idPrefix: 'sn_', collection: 'sticky_notes', tag: 'Notes', fields: ['body'] });
    const note = defineFields(declared, () => ({ body: text('body', 10) }));
    expect([note.type, note.noun, pluralOf(note), note.fieldNames]).toEqual(['STICKY_NOTE', 'sticky note', 'sticky notes', ['body']]);
    expect(Object.keys(note.listQuery.entries)).toEqual(['limit', 'cursor']);
    expect(ok(note.create, { body: 'hi' }).success).toBe(true);
    expect(ok(note.update, {}).success).toBe(true);
    expect(ok(responseSchema(note, () => 'x_'), { object: 'sticky_note', id: 'sn_01M80V5Z1BGJ4D4KG6XRMJFSS7', body: 'hi', workspace_id: 'w', created_at: AT, updated_at: AT }).success).toBe(true);
  });

  it('order the schemas as the declaration orders its fields, whatever order they are given in', () => {
    const declared = declareResource({ kind: 'sticky_note', idPrefix: 'sn_', collection: 'sticky_notes', tag: 'Notes', fields: ['title', 'body'] });
    const note = defineFields(declared, () => ({ body: text('body', 10), title: text('title', 10) }));
    expect(Object.keys(note.entries)).toEqual(['title', 'body']);
    expect(Object.keys(note.update.entries)).toEqual(['title', 'body']);
    expect(Object.keys(responseSchema(note, () => 'x_').entries)).toEqual(['object', 'id', 'title', 'body', 'workspace_id', 'created_at', 'updated_at']);
  });

  it('build each action\'s schema apart, the same as the one documented', () => {
    const { create, update, listQuery } = SCHEMAS.time_entry;
    const fields = { ...RESOURCES.time_entry, entries: SCHEMAS.time_entry.entries };
    const alone = { create: withCreate(fields), update: withUpdate(fields), listQuery: withListQuery(fields) };
    expect(Object.keys(alone.create)).not.toContain('update');
    expect(Object.keys(alone.update)).not.toContain('listQuery');
    expect(Object.keys(alone.listQuery)).not.toContain('create');
    const json = (schema: v.GenericSchema) => toJsonSchema(schema, { errorMode: 'ignore' });
    expect(json(alone.create.create)).toEqual(json(create));
    expect(json(alone.update.update)).toEqual(json(update));
    expect(json(alone.listQuery.listQuery)).toEqual(json(listQuery));
  });

  it('keep the declarations free of schemas: the schemas are a resource\'s declaration plus what derives from its fields', () => {
    for (const [kind, declared] of Object.entries(RESOURCES)) {
      expect(Object.values(declared).some((value) => typeof value === 'object' && value !== null && 'kind' in value && 'async' in value), kind).toBe(false);
      const schemas = SCHEMAS[kind as keyof typeof SCHEMAS];
      expect(Object.keys(schemas.entries), kind).toEqual([...declared.fieldNames]);
      for (const [key, value] of Object.entries(declared)) expect((schemas as Record<string, unknown>)[key], `${kind}.${key}`).toEqual(value);
    }
  });
});

describe('contracts', () => {
  it('are built from the resource the function gives, and refuse another resource or a declaration where fields are parsed', () => {
    expect(contractOf(routeByOperation('retrieveClient'), RESOURCES.client)?.takesId).toBe(true);
    expect(contractOf(routeByOperation('createClient'), SCHEMAS.client)?.body).toBe(SCHEMAS.client.create);
    expect(contractOf(routeByOperation('listProjects'), SCHEMAS.project)?.query).toBe(SCHEMAS.project.listQuery);
    expect(contractOf(routeByOperation('deleteClient'), RESOURCES.client)?.errors).toContain(409);
    // Every delete takes an Idempotency-Key: 409 while it is in use, 422 when it was used for another request.
    expect(contractOf(routeByOperation('deleteTimeEntry'), RESOURCES.time_entry)).toMatchObject({ idempotent: true, errors: expect.arrayContaining([409, 422]) });
    expect(() => contractOf(routeByOperation('retrieveClient'), RESOURCES.project)).toThrow('retrieveClient is an operation of client, not of project');
    expect(() => contractOf(routeByOperation('createClient'), RESOURCES.client)).toThrow("createClient parses fields: give it the resource's create schema (shared/model/define.ts)");
    // A function passes its own action's schema alone; another action's is refused.
    const clientCreate = withCreate(clientFields);
    expect(contractOf(routeByOperation('createClient'), clientCreate)?.body).toBe(clientCreate.create);
    expect(() => contractOf(routeByOperation('updateClient'), clientCreate)).toThrow("updateClient parses fields: give it the resource's update schema");
    expect(() => contractOf(routeByOperation('listClients'), withUpdate(clientFields))).toThrow("listClients parses fields: give it the resource's listQuery schema");
    expect(contractOf(routeByOperation('listClients'), withListQuery(clientFields))?.query?.type).toBe('strict_object');
    expect(() => contractOf(routeByOperation('updateWebhookEndpoint'), RESOURCES.webhook_endpoint)).toThrow('updateWebhookEndpoint parses fields');
    expect(contractOf(routeByOperation('getOpenApiDocument'), undefined)).toBeUndefined();
  });
});
