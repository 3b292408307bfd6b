/**
 * One fixture per resource of the registry: a valid create body (making whatever it references
 * first) and a valid change. The registry-driven suites (request-frame.test.ts) run every
 * resource through them; a resource added to the registry without a fixture fails them.
 */
import { RESOURCES, resourceOf, type ResourceKind } from '../../shared/model/resources.ts';
import { CHILD_ID } from '../../shared/api/routes.ts';
import { createClient, createProject, type Api } from './api.ts';

export interface Fixture {
  /** A valid create body; may create what it references in the workspace of `api`. */
  body(api: Api): Promise<Record<string, unknown>>;
  /** A valid change (for resources that can be updated). */
  change?: Record<string, unknown>;
  /** Fields the create response alone holds (a webhook endpoint's secret): never read back. */
  createOnly?: readonly string[];
  /** A body makes one item only (an invoice takes the time it names): each create needs a fresh one. */
  singleUse?: true;
  /** What brings a new item to where an action succeeds on it (an invoice is paid or voided once finalized). */
  ready?: Partial<Record<string, (api: Api, id: string) => Promise<void>>>;
  /** A resource under another's path (a payment under its invoice): makes a parent that takes the create body, and answers its id. */
  parent?: (api: Api) => Promise<string>;
  /** One per workspace, never created (the business profile): `createOne` reads it. */
  singleton?: true;
}

/** The path of `route` (API prefix left out) for `item`: its `{id}`, or its parent's and its own (`{payment_id}`) for a nested resource. */
export function pathFor(route: { path: string; resource: ResourceKind }, item: Record<string, unknown> | undefined, parentId?: string): string {
  const parent = RESOURCES[route.resource] as { parent?: string };
  const path = route.path.replace('/api/v1', '');
  if (!parent.parent) return path.replace('{id}', String(item?.id ?? ''));
  return path.replace('{id}', String(item?.[`${parent.parent}_id`] ?? parentId)).replace(`{${CHILD_ID}}`, String(item?.id ?? ''));
}

/** Where `kind`'s items are created and listed (a nested resource's: under `parentId`). */
export const collectionPath = (kind: ResourceKind, parentId?: string) => {
  const parent = (RESOURCES[kind] as { parent?: string }).parent;
  return parent ? `/${resourceOf(parent).collection}/${parentId}/${RESOURCES[kind].collection}` : `/${RESOURCES[kind].collection}`;
};

const finalize = async (api: Api, id: string) => {
  const response = await api.post(`/invoices/${id}/finalize`, {});
  if (response.status !== 200) throw new Error(`fixture finalize: ${response.status} ${JSON.stringify(response.body)}`);
};

export const FIXTURES: Record<ResourceKind, Fixture> = {
  client: {
    body: async () => ({ company_name: 'Fixture Co', company_email: 'fixture@fixture.test' }),
    change: { company_name: 'Changed Co' },
  },
  project: {
    body: async (api) => ({ name: 'Fixture project', client_id: (await createClient(api)).id, billing_type: 'Monthly' }),
    change: { name: 'Changed project' },
  },
  time_entry: {
    body: async (api) => {
      const client = await createClient(api);
      return { project_id: (await createProject(api, client.id)).id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 };
    },
    change: { duration_minutes: 50 },
  },
  invoice: {
    // A client with one billable entry in November 2026: the draft takes it.
    body: async (api) => {
      const client = await createClient(api);
      const project = await createProject(api, client.id, { hourly_rate: 100 });
      const entry = await api.post('/time_entries', { project_id: project.id, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 });
      if (entry.status !== 201) throw new Error(`fixture time entry: ${entry.status} ${JSON.stringify(entry.body)}`);
      return { client_id: client.id, from: '2026-11-01', to: '2026-12-01' };
    },
    change: { memo: 'Changed memo' },
    singleUse: true,
    ready: { pay: finalize, void: finalize },
  },
  payment: {
    // A part of the fixture invoice's 50.00, on an invoice finalized for it.
    body: async () => ({ amount: '10.00', method: 'bank_transfer', reference: 'Fixture transfer' }),
    parent: async (api) => {
      const invoice = await api.post('/invoices', await FIXTURES.invoice.body(api));
      if (invoice.status !== 201) throw new Error(`fixture invoice: ${invoice.status} ${JSON.stringify(invoice.body)}`);
      await finalize(api, invoice.body.id);
      return invoice.body.id;
    },
  },
  billing_run: {
    // A run over a month of a workspace with one client and nothing to invoice: it completes at once.
    body: async (api) => ({ from: '2026-11-01', to: '2026-12-01', client_ids: [(await createClient(api)).id] }),
  },
  business_profile: {
    body: async () => ({}),
    change: { company_name: 'Fixture Inc' },
    singleton: true,
  },
  webhook_endpoint: {
    // The local stack accepts loopback receivers (WEBHOOK_ALLOW_LOOPBACK); port 9 (discard) never
    // answers, so the endpoint is made disabled: the clients the suites create are not posted there.
    body: async () => ({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['client.created'], status: 'disabled' }),
    change: { description: 'Changed endpoint' },
    createOnly: ['secret'],
  },
};

/** Creates one resource of `kind` through the API. */
export async function createOne(api: Api, kind: ResourceKind): Promise<Record<string, any>> {
  const parentId = await FIXTURES[kind].parent?.(api);
  const response = FIXTURES[kind].singleton ? await api.get(collectionPath(kind)) : await api.post(collectionPath(kind, parentId), await FIXTURES[kind].body(api));
  if (FIXTURES[kind].singleton && response.status === 200) return response.body;
  // A billing run is started: 202.
  if (response.status !== (kind === 'billing_run' ? 202 : 201)) throw new Error(`create ${kind}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** What reading `created` back answers: the create response less its create-only fields. */
export const readBack = (kind: ResourceKind, created: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(created).filter(([field]) => !(FIXTURES[kind].createOnly ?? []).includes(field)));

/** A well-formed id of `kind` that names nothing. */
export const unknownId = (kind: ResourceKind) => `${RESOURCES[kind].idPrefix}01ARZ3NDEKTSV4RRFFQ69G5FAV`;

/** A new item of `kind` on which `action` succeeds. */
export async function readyFor(api: Api, kind: ResourceKind, action: string): Promise<Record<string, any>> {
  const item = await createOne(api, kind);
  await FIXTURES[kind].ready?.[action]?.(api, String(item.id));
  return item;
}
