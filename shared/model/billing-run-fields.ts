/**
 * A billing run's fields and its start's body (contract, "Billing runs"): `from`, `to` and
 * `timezone` with an invoice create's rules, `billing_types` and `client_ids` optional (null: not
 * given). Apart from resources.ts, as an invoice's are, so the start function builds its body alone.
 */
import * as v from 'valibot';
import { LIMITS } from '../core/field-limits.ts';
import { enumOf, isNonEmpty, isUniqueList, reference, timestamp } from './fields.ts';
import { calendarDate, dateRange, MAX_SUMMARY_DAYS, timeZoneName } from './dates.ts';
import { crossFieldCheck } from './cross-field.ts';

/** A project's billing types (resources.ts `project`), which a run may select. */
export const BILLING_TYPES = ['Weekly', 'BiMonthly', 'Monthly', 'CreditBased', 'Retainer', 'ProjectBased'] as const;
export type BillingType = (typeof BILLING_TYPES)[number];

export const BILLING_RUN_STATUSES = ['queued', 'running', 'completed'] as const;

const SAID = {
  from: 'The first date whose time to invoice (inclusive), in `timezone`',
  to: `The date after the last one (exclusive), in \`timezone\`: after \`from\`, at most ${MAX_SUMMARY_DAYS} days from it`,
  billing_types: 'Only the projects of these billing types (and no time without a project); null: every project, and time without one',
  client_ids: `Only these clients (1 to ${LIMITS.billingRunClients}), answered in the order given; null: every client of the workspace at the start`,
};

const billingTypes = () =>
  v.pipe(
    v.array(enumOf('billing_types', BILLING_TYPES), 'billing_types must be an array of billing types'),
    v.check<BillingType[], string>(isNonEmpty, 'billing_types must name at least one billing type (or be null: every project)'),
    v.check<BillingType[], string>(isUniqueList, 'billing_types must not repeat a billing type'),
    v.metadata({ description: SAID.billing_types }),
  );

const clientIds = () =>
  v.pipe(
    v.array(reference('client_ids'), 'client_ids must be an array of client ids'),
    v.check<string[], string>(isNonEmpty, 'client_ids must name at least one client (or be null: every client)'),
    v.check((ids: string[]) => ids.length <= LIMITS.billingRunClients, `client_ids may name at most ${LIMITS.billingRunClients} clients`),
    v.check(isUniqueList, 'client_ids must not repeat a client'),
    v.metadata({ description: SAID.client_ids }),
  );

const count = (what: string) => v.pipe(v.number(), v.integer(), v.minValue(0), v.metadata({ description: what }));

/** The run's fields as its object shows them (resources.ts declares their order). */
export const billingRunFieldSchemas = () => ({
  status: enumOf('status', BILLING_RUN_STATUSES),
  from: calendarDate('from', SAID.from),
  to: calendarDate('to', SAID.to),
  timezone: timeZoneName('timezone'),
  billing_types: v.nullable(billingTypes()),
  client_ids: v.nullable(clientIds()),
  clients_total: count('The clients of the run, known from its start'),
  clients_done: count('The clients with an outcome (a row of its results) so far'),
  invoices_created: count('The drafts it made so far'),
  completed_at: v.nullable(timestamp('completed_at')),
});

/** A start's body: the range with an invoice create's rules, then what it selects. */
export const billingRunStartBody = () =>
  v.pipe(
    v.strictObject({
      from: calendarDate('from', SAID.from),
      to: calendarDate('to', SAID.to),
      timezone: v.optional(timeZoneName('timezone'), 'UTC'),
      billing_types: v.optional(v.nullable(billingTypes()), null),
      client_ids: v.optional(v.nullable(clientIds()), null),
    }),
    crossFieldCheck([dateRange]),
  );
export type BillingRunStart = v.InferOutput<ReturnType<typeof billingRunStartBody>>;

/** A run's outcomes (contract, "Billing runs"): one per client. */
export const BILLING_RUN_OUTCOMES = ['invoiced', 'nothing_to_invoice', 'failed'] as const;
export type BillingRunOutcome = (typeof BILLING_RUN_OUTCOMES)[number];
