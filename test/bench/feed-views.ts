/**
 * Section 8, feed pages restricted by scopes or filtered (decision 0016): their read units over a
 * workspace whose newest 10,000 events all belong to another collection, beside the floor of what
 * each page shows (the items it read, at 4 KB a unit; `pageFloor`). A page that read events only
 * to skip them would be hundreds of units here; one that reads only its views is at its floor.
 *
 * The events are appended with the event store itself (what the stream consumer calls), in a
 * workspace of their own: 60 project events and 30 time entry events, then 10,000 client events.
 */
import { randomUUID } from 'node:crypto';
import { observe, unitsOf } from './lib/sdk-hooks.ts';
import { invoke, type Caller } from './lib/invoke.ts';
import { pageFloor } from './units.ts';
import { eventDraft } from './scenarios.ts';

export interface FeedViewRow {
  label: string;
  /** Read units of the page's calls (strongly consistent reads: 1 unit per 4 KB read). */
  readUnits: number;
  /** What the items the page read cost at 4 KB a unit: undefined when a filter passed items over. */
  floor: number | undefined;
  items: number;
  calls: string[];
}

export const OTHER_EVENTS = 10_000;
const PROJECT_EVENTS = 60;
const ENTRY_EVENTS = 30;
const FEED = ['events:read'];

export async function runFeedViewsBench(repoRoot: string, log: (s: string) => void): Promise<FeedViewRow[]> {
  const { appendEvents } = await import('../../shared/events/store.ts');
  const workspaceId = `bench-views-${randomUUID().slice(0, 8)}`;
  log(`events: feed views, appending ${PROJECT_EVENTS + ENTRY_EVENTS} project and time entry events, then ${OTHER_EVENTS} client events`);
  const started = performance.now();
  const first = await appendEvents(workspaceId, [
    ...Array.from({ length: PROJECT_EVENTS }, (_, n) => eventDraft(workspaceId, 'project', n)),
    ...Array.from({ length: ENTRY_EVENTS }, (_, n) => eventDraft(workspaceId, 'time_entry', n)),
  ]);
  for (let n = 0; n < OTHER_EVENTS; n += 1000) {
    await appendEvents(workspaceId, Array.from({ length: 1000 }, (_, i) => eventDraft(workspaceId, 'client', n + i)));
  }
  log(`events: feed views workspace written in ${Math.round((performance.now() - started) / 1000)} s`);

  const projectEvent = first[0]!.event;
  const caller = (scopes: readonly string[]): Caller => ({ workspaceId, apiClientId: `local-${workspaceId}`, scopes });
  const cases: [string, Caller, Record<string, string>][] = [
    ['every collection readable, newest 25 (the whole feed)', caller([...FEED, 'clients:read', 'projects:read', 'time_entries:read', 'invoices:read']), { limit: '25' }],
    ['projects:read only, newest 25', caller([...FEED, 'projects:read']), { limit: '25' }],
    ['projects:read + time_entries:read, newest 25 (two views merged)', caller([...FEED, 'projects:read', 'time_entries:read']), { limit: '25' }],
    ['projects:read + time_entries:read, sync mode after the first event', caller([...FEED, 'projects:read', 'time_entries:read']), { limit: '25', after: projectEvent.id }],
    ['type=project.created, newest 25', caller([...FEED, 'clients:read', 'projects:read', 'time_entries:read']), { limit: '25', type: 'project.created' }],
    ['object_id of one project, newest 25', caller([...FEED, 'clients:read', 'projects:read', 'time_entries:read']), { limit: '25', object_id: projectEvent.data.object.id }],
  ];
  const rows: FeedViewRow[] = [];
  for (const [label, who, query] of cases) {
    const { result, calls } = await observe(() => invoke(repoRoot, who, { operation: 'listEvents', query }));
    if (result.status !== 200) throw new Error(`listEvents (${label}): ${result.status} ${JSON.stringify(result.body)}`);
    rows.push({
      label,
      readUnits: unitsOf(calls).read,
      floor: pageFloor(calls.filter((c) => c.command === 'QueryCommand')),
      items: (result.body.data as unknown[]).length,
      calls: calls.map((c) => c.command.replace(/Command$/, '')),
    });
  }
  return rows;
}
