/**
 * The business profile (contract, "Business profile and the invoice document"): one per workspace,
 * its id derived from the workspace's, answered from the start with its fields' defaults. Its first
 * change writes its item (absent until then); each change is a Put on the version read, with the
 * caller's record. Invoices created without taxes take its `default_taxes`.
 */
import { insufficientScope, preconditionFailed } from '../core/errors.ts';
import { singletonIdOf } from '../core/ids.ts';
import * as keys from '../data/keys.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { absent, atVersion, dataOfItem, deletePart, getItem, ITEM_PART, matchesVersion, putPart, transact, versionOf, type TransactItem } from '../data/writes.ts';
import { storedField, type ObjectOf } from '../model/objects.ts';
import { businessProfile } from '../model/resources.ts';
import type { CallerContext, IfMatch, Versioned } from './context.ts';
import { answerUnchanged, recordPart, refuseIfRecordTaken, versioned } from './entity.ts';

export type BusinessProfile = ObjectOf<typeof businessProfile>;
export type TaxRate = { name: string; rate: number };

const keyOf = (ctx: CallerContext) => keys.item(ctx.workspaceId, businessProfile.type, singletonIdOf(businessProfile.idPrefix, ctx.workspaceId));

/** The profile's item, or what it reads as before its first change (version 0: its ETag says so). */
async function readProfile(ctx: CallerContext): Promise<Record<string, unknown>> {
  const key = keyOf(ctx);
  return (await getItem(key)) ?? { ...key, [DATA_ATTRIBUTE]: { id: singletonIdOf(businessProfile.idPrefix, ctx.workspaceId), workspace_id: ctx.workspaceId }, [VERSION_ATTRIBUTE]: 0 };
}

export async function retrieveBusinessProfile(ctx: CallerContext): Promise<Versioned<BusinessProfile>> {
  return versioned(businessProfile, await readProfile(ctx));
}

/** The taxes an invoice created without `taxes` or `tax_rate` takes. */
export const defaultTaxes = async (ctx: CallerContext): Promise<TaxRate[]> => storedField(businessProfile, dataOfItem(await readProfile(ctx)), 'default_taxes') as TaxRate[];

/** The fields that start billing runs by themselves (contract, "Billing runs"): changing them takes the invoices' write scope too. */
const SCHEDULING = ['auto_billing', 'billing_timezone'];
const INVOICES_WRITE = 'invoices:write';

/**
 * The workspace's entry among those with auto_billing on (keys.billingSchedule), as the profile
 * after the change says: put with its zone while on, deleted once off, in the change's transaction.
 */
function schedulePart(ctx: CallerContext, before: Record<string, unknown>, after: Record<string, unknown>): Record<string, TransactItem> {
  const key = keys.billingSchedule(ctx.workspaceId);
  if (after.auto_billing === true) return { schedule: putPart({ ...key, timezone: storedField(businessProfile, after, 'billing_timezone') }) };
  return before.auto_billing === true ? { schedule: deletePart(key) } : {};
}

/** PATCH: the fields given (null clears one), on If-Match; an empty one changes nothing. */
export async function updateBusinessProfile(ctx: CallerContext, patch: Record<string, unknown>, expectedVersion: IfMatch, now = new Date()): Promise<Versioned<BusinessProfile>> {
  const scheduling = SCHEDULING.filter((field) => field in patch);
  if (scheduling.length > 0 && !ctx.scopes.includes(INVOICES_WRITE)) {
    throw insufficientScope(INVOICES_WRITE, `Changing ${scheduling.join(' and ')} starts billing runs: the access token needs the scope '${INVOICES_WRITE}' beside 'business_profile:write'`);
  }
  for (;;) {
    const read = await readProfile(ctx);
    const version = versionOf(read);
    if (!matchesVersion(expectedVersion, version)) throw preconditionFailed(businessProfile.noun, String(dataOfItem(read).id));
    if (Object.keys(patch).length === 0) return answerUnchanged(ctx, versioned(businessProfile, read));
    const before = dataOfItem(read);
    const updatedAt = new Date(Math.max(now.getTime(), Date.parse(String(before.updated_at ?? 0)) || 0)).toISOString();
    const item = { ...keyOf(ctx), [DATA_ATTRIBUTE]: { ...before, ...patch, updated_at: updatedAt }, [VERSION_ATTRIBUTE]: version + 1, [REQUEST_ID_ATTRIBUTE]: ctx.requestId };
    const changed = versioned(businessProfile, item);
    const cancelled = await transact<string>({
      [ITEM_PART]: putPart(item, { condition: version === 0 ? absent() : atVersion(version) }),
      ...(scheduling.length > 0 ? schedulePart(ctx, before, item[DATA_ATTRIBUTE]) : {}),
      ...recordPart(ctx, changed),
    });
    if (!cancelled) return changed;
    refuseIfRecordTaken(ctx, cancelled);
    // Changed meanwhile: read it again (a 412 if If-Match named the version it had).
  }
}
