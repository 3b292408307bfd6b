/**
 * A CreditBased project's credit ledger (contract, "Billing types"; decision 0029): one item in the
 * project's fees partition holding its credit (minor units of the client's currency, as a decimal
 * string: blocks bought less credit used, over its invoices that are not void) and a version.
 * Each change is a Put on the version read, in the transaction of the invoice's batch that states
 * the project's credit line (a create) or gives it back (a void, a draft's delete). Two invoices
 * of one project meet at that condition: the one cancelled reads the ledger again and states its
 * line from the new credit, so their balances follow one order, the order their batches commit.
 */
import * as keys from '../../data/keys.ts';
import { VERSION_ATTRIBUTE } from '../../data/table.ts';
import { absent, atVersion, getItem, putPart, type TransactItem } from '../../data/writes.ts';
import type { CreditLine, InvoiceLine } from './amounts.ts';
import { creditLineOf, creditReturned, type CreditTerms } from './fees.ts';

/** The ledger's attribute holding the credit. */
const CREDIT = 'credit';

interface Ledger {
  projectId: string;
  credit: bigint;
  /** 0: no ledger yet (no invoice has stated the project's credit). */
  version: number;
}

async function readLedger(workspaceId: string, projectId: string): Promise<Ledger> {
  const item = await getItem(keys.creditLedger(workspaceId, projectId));
  return { projectId, credit: BigInt(String(item?.[CREDIT] ?? '0')), version: Number(item?.[VERSION_ATTRIBUTE] ?? 0) };
}

/** The ledger set to `credit`, on condition that it is still as `read`. */
const ledgerPart = (workspaceId: string, read: Ledger, credit: bigint): TransactItem =>
  putPart(
    { ...keys.creditLedger(workspaceId, read.projectId), [CREDIT]: credit.toString(), [VERSION_ATTRIBUTE]: read.version + 1 },
    { condition: read.version === 0 ? absent() : atVersion(read.version) },
  );

/** The credit before an invoice of `terms`' projects, from their ledgers as they are now (strongly consistent). */
export async function creditsNow(workspaceId: string, terms: readonly CreditTerms[]): Promise<Map<string, bigint>> {
  const ledgers = await Promise.all(terms.map((t) => readLedger(workspaceId, t.project_id)));
  return new Map(ledgers.map((l) => [l.projectId, l.credit]));
}

/**
 * The credit lines of `terms`' projects on an invoice holding `lines`, stated from their ledgers
 * as they are now, and the ledgers' Puts (parts named `credit<i>`) that record them.
 */
export async function stateCredit(workspaceId: string, terms: readonly CreditTerms[], lines: readonly InvoiceLine[], currency: string) {
  const credits: CreditLine[] = [];
  const parts: Record<string, TransactItem> = {};
  await Promise.all(
    terms.map(async (t) => {
      const ledger = await readLedger(workspaceId, t.project_id);
      const stated = creditLineOf(t, ledger.credit, lines, currency);
      if (!stated) return;
      parts[`credit${credits.length}`] = ledgerPart(workspaceId, ledger, stated.after);
      credits.push(stated.line);
    }),
  );
  return { credits, parts };
}

/** The ledgers' Puts (parts named `credit<i>`) that give back what each of `credits` took: its time's value, less its blocks. */
export async function returnCredit(workspaceId: string, credits: readonly CreditLine[]): Promise<Record<string, TransactItem>> {
  const ledgers = await Promise.all(credits.map((line) => readLedger(workspaceId, line.project_id)));
  return Object.fromEntries(ledgers.map((ledger, i) => [`credit${i}`, ledgerPart(workspaceId, ledger, ledger.credit + creditReturned(credits[i]!))]));
}
