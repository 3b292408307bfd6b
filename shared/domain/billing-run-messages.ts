/**
 * The billing queue's messages (decision 0033): a run's plan page, or one client. Apart from the
 * run's rules (billing-runs.ts), so the table stream's consumer, which sends a started run's first
 * plan page, carries none of the invoice code.
 */
/** A page of a run's clients to plan (`after`: the last client's sort key, null at the start; `sent`: the clients planned so far). */
export interface PlanMessage {
  kind: 'plan';
  workspace_id: string;
  run_id: string;
  after: string | null;
  sent: number;
}
/** One client of a run to bill. */
export interface ClientMessage {
  kind: 'client';
  workspace_id: string;
  run_id: string;
  client_id: string;
}
export type BillingMessage = PlanMessage | ClientMessage;


/** The plan message of a run that has just become `running` (the stream's consumer sends it). */
export const firstPlan = (workspaceId: string, runId: string): PlanMessage => ({ kind: 'plan', workspace_id: workspaceId, run_id: runId, after: null, sent: 0 });
