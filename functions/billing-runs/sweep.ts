/**
 * The billing schedules' sweep (not a route; contract, "Billing runs"): invoked by an EventBridge
 * Scheduler schedule every 15 minutes, it starts the runs due on each auto-billing workspace's
 * local day that are not yet made (domain/billing-runs.ts, sweepBillingSchedules).
 */
import * as logger from '../../shared/core/log.ts';
import { sweepBillingSchedules } from '../../shared/domain/billing-runs.ts';

export const handler = async (): Promise<void> => {
  const started = await sweepBillingSchedules(new Date());
  if (started.length > 0) logger.info('Scheduled billing runs started', { runs: started.length });
};
