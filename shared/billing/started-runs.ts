/**
 * What the table stream's consumer does for billing runs (decision 0033): each run a batch of
 * changes made `running` (a start with the lane free, or a queued run started) gets its first plan
 * page sent. Apart from the queue's work (work.ts), so the consumer's bundle holds none of it.
 */
import type { StreamChange } from '../events/build.ts';
import { itemOfImage } from '../data/stream-images.ts';
import { dataOfItem } from '../data/writes.ts';
import { firstPlan } from '../domain/billing-run-messages.ts';
import { billingRun } from '../model/resources.ts';
import { billingQueue } from './run-queue.ts';

/** A billing run's sort key: `BILLING_RUN#<id>`. */
const RUN_KEY = new RegExp(`^${billingRun.type}#`);

/** The runs a batch of table changes made `running` (a start with the lane free, or a queued run started): each one's first plan page is sent. */
export async function planStartedRuns(records: readonly StreamChange[]): Promise<number> {
  const plans = records.flatMap((record) => {
    const image = record.dynamodb;
    const after = image?.NewImage ? itemOfImage(image.NewImage) : undefined;
    if (!after || !RUN_KEY.test(String(after.SK))) return [];
    const before = image?.OldImage ? dataOfItem(itemOfImage(image.OldImage)) : undefined;
    const data = dataOfItem(after);
    return data.status === 'running' && before?.status !== 'running' ? [firstPlan(String(data.workspace_id), String(data.id))] : [];
  });
  if (plans.length > 0) await billingQueue().send(plans);
  return plans.length;
}
