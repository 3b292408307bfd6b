/**
 * Section 4: DynamoDB capacity units of every operation, as DynamoDB Local reports them with
 * `ReturnConsumedCapacity: INDEXES` (set on every command by lib/sdk-hooks.ts, transactions and
 * Powertools' idempotency records included), beside the floor docs/data-model.md derives.
 */
import { invoke } from './lib/invoke.ts';
import { observe, unitsOf, type ObservedCall, type Units } from './lib/sdk-hooks.ts';
import { median } from './lib/stats.ts';
import { itemSize, type Fixture, type Scenario, type UnitFloor } from './scenarios.ts';

export interface UnitsResult {
  key: string;
  operation: string;
  label: string;
  /** Median over the runs (they agree: units are deterministic for the same data). */
  measured: Units;
  /** Every run's total, to show they agree. */
  runs: number[];
  floor: { rcu: number; wcu: number; total: number; source: string } | undefined;
  /** What the calls were, for the explanation of any excess. */
  commands: string[];
  /** What DynamoDB Local charged each transaction, beside the items it wrote. */
  transactions: TransactionCharge[];
}

export interface TransactionCharge {
  items: number;
  tableUnits: number;
  indexUnits: number;
  /**
   * Index items written, at the floor's rules: DynamoDB Local charges each index of a transaction
   * 2 units however many of its items it writes, so half its figure, or (a batch of Puts to one
   * index, decision 0032) the index keys of the items put, whichever is more.
   */
  indexItems: number;
}

/** The index keys (`GSI<n>PK`) of the items a transaction puts: one index item each. */
const indexKeysPut = (transactItems: readonly { Put?: { Item?: Record<string, unknown> } }[]) =>
  transactItems.reduce((n, t) => n + Object.keys(t.Put?.Item ?? {}).filter((name) => /^GSI\d+PK$/.test(name)).length, 0);

/** The floor of a list page: ⌈size of the items read / 4 KB⌉ per Query, half through a GSI. */
export function pageFloor(calls: readonly ObservedCall[]): number | undefined {
  let total = 0;
  for (const call of calls) {
    if (call.command !== 'QueryCommand') continue;
    if (call.items === undefined || call.count !== call.scannedCount) return undefined; // a filter passed over items we cannot see
    const bytes = call.items.reduce((sum, item) => sum + itemSize(item), 0);
    const units = Math.max(1, Math.ceil(bytes / 4096));
    total += call.input.ConsistentRead === true ? units : units / 2;
  }
  return total;
}

function floorOf(floor: UnitFloor, calls: readonly ObservedCall[]): UnitsResult['floor'] {
  if (floor.kind === 'fixed') return { rcu: floor.rcu, wcu: floor.wcu, total: floor.rcu + floor.wcu, source: floor.source };
  const page = pageFloor(calls);
  const rcu = page === undefined ? undefined : page + (floor.reads ?? 0);
  return rcu === undefined ? undefined : { rcu, wcu: 0, total: rcu, source: floor.source };
}

export function transactionCharges(calls: readonly ObservedCall[]): TransactionCharge[] {
  return calls
    .filter((call) => call.command === 'TransactWriteItemsCommand')
    .map((call) => {
      const indexUnits = call.consumed.reduce((sum, c) => sum + Object.values(c.GlobalSecondaryIndexes ?? {}).reduce((t, i) => t + (i.CapacityUnits ?? 0), 0), 0);
      const transactItems = call.input.TransactItems as { Put?: { Item?: Record<string, unknown> } }[];
      return {
        items: transactItems.length,
        tableUnits: call.consumed.reduce((sum, c) => sum + (c.Table?.CapacityUnits ?? 0), 0),
        indexUnits,
        indexItems: Math.max(indexUnits / 2, indexKeysPut(transactItems)),
      };
    });
}

/**
 * The total at the floor's rules for transactions (2 units per item written, 1 per index item:
 * `indexItems`), everything else as DynamoDB Local reported it.
 */
export function atFloorRules(r: Pick<UnitsResult, 'measured' | 'transactions'>): number {
  return r.transactions.reduce((total, t) => total - t.tableUnits - t.indexUnits + 2 * t.items + t.indexItems, r.measured.total);
}

export async function measureScenarioUnits(fx: Fixture, scenario: Scenario, runs = 3): Promise<UnitsResult> {
  const results: { units: Units; calls: ObservedCall[] }[] = [];
  for (let i = 0; i < runs; i++) {
    const request = await scenario.prepare(fx);
    const { result, calls } = await observe(() => invoke(fx.repoRoot, fx.caller, request));
    if (result.status >= 300) throw new Error(`${scenario.key}: ${result.status} ${JSON.stringify(result.body)}`);
    results.push({ units: unitsOf(calls), calls });
  }
  const totals = results.map((r) => r.units.total);
  const mid = results.find((r) => r.units.total === median(totals)) ?? results[0]!;
  return {
    key: scenario.key,
    operation: scenario.operation,
    label: scenario.label,
    measured: mid.units,
    runs: totals,
    floor: floorOf(scenario.floor, mid.calls),
    commands: mid.calls.map((c) => c.command.replace(/Command$/, '')),
    transactions: transactionCharges(mid.calls),
  };
}

/** Why a measured figure differs from its floor, when the calls tell. */
export function explainExcess(r: UnitsResult): string {
  if (!r.floor) return 'no fixed floor: grows with the items the filter passes over (see scaling)';
  const excess = r.measured.total - r.floor.total;
  const charges = r.transactions
    .map(
      (t) =>
        `a transaction of ${t.items} items: table ${t.tableUnits} (2 per item: ${2 * t.items}), ` +
        `${t.indexItems} index item${t.indexItems === 1 ? '' : 's'} ${t.indexUnits} (1 each: ${t.indexItems})`,
    )
    .join('; ');
  if (r.transactions.length === 0) {
    if (Math.abs(excess) < 1e-9) return 'equal to the floor';
    return `${excess > 0 ? `${excess} above` : `${-excess} below`} the floor, unexplained: calls were ${r.commands.join(' + ')}`;
  }
  const adjusted = atFloorRules(r);
  const verdict = Math.abs(excess) < 1e-9 ? 'equal to the floor in total' : `${excess > 0 ? `${excess} above` : `${-excess} below`} the floor`;
  const rules =
    Math.abs(adjusted - r.floor.total) < 1e-9
      ? `at the floor's rules for transactions, exactly the floor (${adjusted})`
      : `at the floor's rules for transactions ${adjusted}, still ${adjusted - r.floor.total} off the floor: unexplained`;
  return `${verdict}; DynamoDB Local charged ${charges}; ${rules}`;
}
