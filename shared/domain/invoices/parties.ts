/**
 * The parties an invoice's document shows (contract, "Business profile and the invoice document"):
 * the business profile's fields (`issuer`) and the client's (`recipient`), which finalize freezes
 * on the invoice; a draft's document shows the current ones.
 */
import { ISSUER_FIELDS, RECIPIENT_FIELDS, type Issuer, type Recipient } from '../../model/invoice-fields.ts';
import { objectOf, type Invoice } from '../../model/objects.ts';
import { client, invoice } from '../../model/resources.ts';
import { retrieveBusinessProfile } from '../business-profile.ts';
import type { CallerContext } from '../context.ts';
import { readItem, retrieve } from '../entity.ts';

const pick = <T>(object: Record<string, unknown>, fields: readonly string[]) => Object.fromEntries(fields.map((field) => [field, object[field] ?? null])) as T;

/** Both parties as they are now: what finalize freezes. */
export async function partiesOf(ctx: CallerContext, clientId: string): Promise<{ issuer: Issuer; recipient: Recipient }> {
  const [profile, recipient] = await Promise.all([retrieveBusinessProfile(ctx), readItem(ctx, client, clientId)]);
  // The client of an invoice cannot be deleted (its guard counts the invoice): it is there.
  if (!recipient) throw new Error(`invoice's client ${clientId} is missing`);
  return { issuer: pick(profile.resource, ISSUER_FIELDS), recipient: pick(objectOf(client, recipient), RECIPIENT_FIELDS) };
}

/**
 * An invoice and the parties its document shows: those frozen on it, or the current ones while it
 * is a draft (and for an invoice finalized before parties were frozen, which has none).
 */
export async function invoiceDocumentOf(ctx: CallerContext, id: string): Promise<{ invoice: Invoice; issuer: Issuer; recipient: Recipient }> {
  const { resource } = await retrieve(ctx, invoice, id);
  const frozen = { issuer: resource.issuer as Issuer | null, recipient: resource.recipient as Recipient | null };
  const current = frozen.issuer && frozen.recipient ? undefined : await partiesOf(ctx, resource.client_id);
  return { invoice: resource, issuer: frozen.issuer ?? current!.issuer, recipient: frozen.recipient ?? current!.recipient };
}
