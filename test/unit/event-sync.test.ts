/**
 * The pure parts of sync mode's gap rule (shared/events/sync.ts, decision 0018): how each item
 * names its predecessor, and which items a page may show. The reads themselves run against
 * DynamoDB Local in test/integration/event-isolation.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { changePlace, decodeVec, encodeVec, typeSlot } from '../../shared/events/store.ts';
import { GAP_BOUND_MS, follows, walk, type Chain } from '../../shared/events/sync.ts';
import { orderOfId, sortableId } from '../../shared/core/ids.ts';
import { EVENT_TYPES } from '../../shared/model/event-types.ts';

const now = new Date('2026-11-26T12:00:00Z');
const fresh = now.getTime() - 1000;
const old = now.getTime() - GAP_BOUND_MS - 1000;

describe("an object's changes", () => {
  it('are placed by version, then created < updated < deleted, each after the change that made its version', () => {
    expect(changePlace('CLIENT#cli_1#created#v1')).toEqual({ position: '0000000001#0', prev: undefined });
    expect(changePlace('CLIENT#cli_1#updated#v2')).toEqual({ position: '0000000002#1', prev: '0000000001#0' });
    expect(changePlace('CLIENT#cli_1#updated#v12')).toEqual({ position: '0000000012#1', prev: '0000000011#1' });
    expect(changePlace('CLIENT#cli_1#deleted#v12')).toEqual({ position: '0000000012#2', prev: '0000000012#1' });
    expect(changePlace('CLIENT#cli_1#deleted#v1')).toEqual({ position: '0000000001#2', prev: '0000000001#0' });
    const sorted = ['CLIENT#c#updated#v10', 'CLIENT#c#created#v1', 'CLIENT#c#deleted#v10', 'CLIENT#c#updated#v2'].map((k) => changePlace(k).position).sort();
    expect(sorted).toEqual(['0000000001#0', '0000000002#1', '0000000010#1', '0000000010#2']);
  });

  it('follow the predecessor a change key names, for versions that make no event (an invoice, decision 0025)', () => {
    // Built in versions 1-4 (no event), sealed at 5, updated at 6, finalized at 7; another deleted at 9 after release batches from 7.
    expect(changePlace('INVOICE#inv_1#created#v5#after#none')).toEqual({ position: '0000000005#0', prev: undefined });
    expect(changePlace('INVOICE#inv_1#updated#v6#after#v5')).toEqual({ position: '0000000006#1', prev: '0000000005#0' });
    expect(changePlace('INVOICE#inv_1#finalized#v7#after#v6')).toEqual({ position: '0000000007#1', prev: '0000000006#0' });
    expect(changePlace('INVOICE#inv_2#deleted#v9#after#v6')).toEqual({ position: '0000000009#2', prev: '0000000006#0' });
    expect(changePlace('INVOICE#inv_2#deleted#v9#after#none')).toEqual({ position: '0000000009#2', prev: undefined });
    // In the object's view: each change follows once the change before it was read, whatever its action, and not before.
    const item = (key: string) => ({ SK: `CHANGE#${changePlace(key).position}`, prev: changePlace(key).prev });
    const at = (key: string | undefined) => ({ sequence: 0, change: key === undefined ? undefined : item(key).SK });
    const chain: Chain = { kind: 'object' };
    expect(follows(chain, item('INVOICE#inv_1#created#v5#after#none'), at(undefined))).toBe(true);
    expect(follows(chain, item('INVOICE#inv_1#updated#v6#after#v5'), at('INVOICE#inv_1#created#v5#after#none'))).toBe(true);
    expect(follows(chain, item('INVOICE#inv_1#finalized#v7#after#v6'), at('INVOICE#inv_1#updated#v6#after#v5'))).toBe(true);
    expect(follows(chain, item('INVOICE#inv_1#finalized#v7#after#v6'), at('INVOICE#inv_1#created#v5#after#none'))).toBe(false);
    expect(follows(chain, item('INVOICE#inv_1#updated#v6#after#v5'), at(undefined))).toBe(false);
    expect(follows(chain, item('INVOICE#inv_2#deleted#v9#after#v6'), at('INVOICE#inv_1#updated#v6#after#v5'))).toBe(true);
  });
});

describe('vec and event ids', () => {
  it('round-trip', () => {
    const vec = EVENT_TYPES.map((_, i) => i * 1000 + 7);
    expect(decodeVec(encodeVec(vec))).toEqual(vec);
    expect(decodeVec(undefined)).toEqual(EVENT_TYPES.map(() => 0));
    expect(orderOfId('evt_', sortableId('evt_', 123_456_789))).toBe(123_456_789);
  });
});

describe('follows: each source names the predecessor of its items', () => {
  it('the feed: the next sequence number', () => {
    expect(follows({ kind: 'feed' }, { sequence: 8 }, { sequence: 7, change: undefined })).toBe(true);
    expect(follows({ kind: 'feed' }, { sequence: 9 }, { sequence: 7, change: undefined })).toBe(false);
  });
  it("a type view: its type's last event before it, at or before what was read", () => {
    const slot = typeSlot('client.updated');
    const vec = (n: number) => encodeVec(EVENT_TYPES.map((_, i) => (i === slot ? n : 50)));
    expect(follows({ kind: 'type', slot }, { sequence: 60, vec: vec(7) }, { sequence: 7, change: undefined })).toBe(true);
    expect(follows({ kind: 'type', slot }, { sequence: 60, vec: vec(3) }, { sequence: 7, change: undefined })).toBe(true);
    expect(follows({ kind: 'type', slot }, { sequence: 60, vec: vec(8) }, { sequence: 7, change: undefined })).toBe(false);
  });
  it("an object's view: its previous change, at or before the last change read", () => {
    const chain: Chain = { kind: 'object' };
    const item = { SK: 'CHANGE#0000000003#1', prev: '0000000002#1' };
    expect(follows(chain, item, { sequence: 0, change: 'CHANGE#0000000002#1' })).toBe(true);
    expect(follows(chain, item, { sequence: 0, change: 'CHANGE#0000000001#0' })).toBe(false);
    expect(follows(chain, item, { sequence: 0, change: undefined })).toBe(false);
    expect(follows(chain, { SK: 'CHANGE#0000000001#0' }, { sequence: 0, change: undefined })).toBe(true);
  });
});

describe('walk: what a page may show of what its sources read', () => {
  const slotA = typeSlot('client.updated');
  const slotB = typeSlot('project.updated');
  const item = (sequence: number, a: number, b: number, appended = fresh) => ({
    sequence,
    appended_at: appended,
    vec: encodeVec(EVENT_TYPES.map((_, i) => (i === slotA ? a : i === slotB ? b : 0))),
  });
  const chains: Chain[] = [
    { kind: 'type', slot: slotA },
    { kind: 'type', slot: slotB },
  ];
  const all = () => true;

  it('merges in sequence order while every other view has been read up to its vec', () => {
    const a = [item(2, 1, 1), item(4, 2, 3)];
    const b = [item(3, 2, 1)];
    expect(walk([a, b], chains, 1, all, 25, now).map((i) => i.sequence)).toEqual([2, 3, 4]);
  });

  it("stops before an event whose vec names another view's event not read (still being written)", () => {
    // Event 3 of view B is missing: view A's event 4 says B's last before it is 3.
    const shown = walk([[item(2, 1, 1), item(4, 2, 3)], []], chains, 1, all, 25, now);
    expect(shown.map((i) => i.sequence)).toEqual([2]);
  });

  it('passes it once the event is older than the bound', () => {
    const shown = walk([[item(2, 1, 1, old), item(4, 2, 3, old)], []], chains, 1, all, 25, now);
    expect(shown.map((i) => i.sequence)).toEqual([2, 4]);
  });

  it('returns limit + 1 shown items at most (has_more), hidden ones not counted', () => {
    const a = [1, 2, 3, 4, 5].map((n) => item(n + 1, n, 0));
    expect(walk([a], chains.slice(0, 1), 1, all, 2, now)).toHaveLength(3);
    expect(walk([a], chains.slice(0, 1), 1, (i) => Number(i.sequence) % 2 === 0, 25, now).map((i) => i.sequence)).toEqual([2, 4, 6]);
  });
});
