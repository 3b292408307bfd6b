/**
 * The one-off backfill of the totals (docs/decisions/0019-time-totals.md, "Entries stored before"):
 * an entry stored before them has no `billable_rate` and is in no total. Counting it is one
 * transaction, on condition that it is still at the version read and still uncounted: its rate
 * becomes its project's `hourly_rate` now (null without a project or a rate), and its totals take
 * it. So the backfill is idempotent (a counted entry is skipped) and resumable (stop it anywhere,
 * run it again), and a request that changes the entry meanwhile counts it itself
 * (domain/time-entries.ts), never twice.
 */
import * as keys from '../data/keys.ts';
import { storedTimeEntry } from '../data/stored-time-entries.ts';
import { DATA_ATTRIBUTE, REQUEST_ID_ATTRIBUTE, VERSION_ATTRIBUTE } from '../data/table.ts';
import { changeExpression } from '../data/update.ts';
import { allOf, atVersion, dataOfItem, exists, getItem, transact, updatePart, versionOf } from '../data/writes.ts';
import { objectOf } from '../model/objects.ts';
import { project } from '../model/resources.ts';
import { COUNTED_ATTRIBUTE, totalsParts } from './totals.ts';

export type BackfillOutcome = 'counted' | 'skipped';

const MAX_ATTEMPTS = 10;

/** Counts one time entry, given its base-table key; 'skipped' when it is counted already or gone. */
export async function countStoredEntry(key: { PK: string; SK: string }): Promise<BackfillOutcome> {
  const workspaceId = key.PK.slice('WS#'.length);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const item = await getItem(key);
    if (!item || item[COUNTED_ATTRIBUTE] !== undefined || item[DATA_ATTRIBUTE] === undefined) return 'skipped';
    const data = dataOfItem(item);
    const entry = storedTimeEntry(data);
    const version = versionOf(item);
    // Stored before the totals: no billable_rate at all (a null one is a rate the entry was given).
    const hasRate = Object.hasOwn(data, 'billable_rate');
    const rate = hasRate ? entry.billable_rate : await rateOfProject(workspaceId, entry.project_id);
    // A rate the object did not show (null before) is a change of it: a new version, and its event.
    const visible = !hasRate && rate !== null;
    const updatedAt = new Date(Math.max(Date.now(), Date.parse(entry.updated_at) + 1)).toISOString();
    const uncounted = { expression: 'attribute_not_exists(#counted)', names: { '#counted': COUNTED_ATTRIBUTE }, values: {} };
    const cancelled = await transact<string>({
      entry: updatePart(
        key,
        changeExpression({
          fields: { billable_rate: rate, ...(visible ? { updated_at: updatedAt } : {}) },
          attributes: { [COUNTED_ATTRIBUTE]: 1, ...(visible ? { [VERSION_ATTRIBUTE]: version + 1 } : {}) },
          // The backfill's own write: no request made this version.
          remove: visible ? [REQUEST_ID_ATTRIBUTE] : [],
        }),
        { condition: allOf(exists(), uncounted, atVersion(version)) },
      ),
      ...totalsParts(workspaceId, undefined, { ...entry, billable_rate: rate }),
    });
    if (!cancelled) return 'counted';
    // Changed meanwhile (by a request, which counted it, or moved it): read it again.
  }
  throw new Error(`time entry ${key.SK} of ${workspaceId} kept changing: run the backfill again`);
}

const projectRates = new Map<string, number | null>();

/** A project's hourly_rate now (null without a project); a project that is gone gives null. */
async function rateOfProject(workspaceId: string, projectId: string | null): Promise<number | null> {
  if (projectId === null) return null;
  const cacheKey = `${workspaceId}|${projectId}`;
  if (!projectRates.has(cacheKey)) {
    const item = await getItem(keys.item(workspaceId, project.type, projectId));
    projectRates.set(cacheKey, item ? objectOf(project, item).hourly_rate : null);
  }
  return projectRates.get(cacheKey)!;
}
