/** The shape of docs/benchmarks.json: everything a run measured, and its verdict on each target. */
import type { SummaryPoint } from './summaries.ts';
import type { ColdResult } from './cold-start.ts';
import type { CostResult } from './cost.ts';
import type { ScalingResult } from './scaling.ts';
import type { ThroughputResult } from './throughput.ts';
import type { FairnessResult } from './fairness.ts';
import type { UnitsResult } from './units.ts';
import type { WarmResult } from './warm.ts';
import type { EventsBenchResult } from './events.ts';
import type { InvoiceBenchResult } from './invoices.ts';
import type { BillingBenchResult } from './billing-runs.ts';
import type { DocumentBenchResult } from './documents.ts';
import type { FloorWork } from './lib/floor.ts';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  java: string;
  dynamoDbLocal: string;
}

export interface BundleRow {
  name: string;
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
  /** `work`: what the floor does beside its commands (a document's: a one-line PDF). */
  floor: { commands: string[]; work?: FloorWork[]; minifiedBytes: number; gzipBytes: number } | undefined;
  ratioMinified: number | undefined;
  ratioGzip: number | undefined;
  /** Packages the bundle holds beyond its floor, bytes in the minified output. */
  excess: { name: string; bytes: number }[];
}

/** A cold-start row is what runColdStarts measures. */
export type ColdRow = ColdResult;

export interface UnitsRow extends UnitsResult {
  ratio: number | undefined;
  explanation: string;
}

export interface Target {
  id: string;
  target: string;
  met: boolean;
  result: string;
  why?: string;
}

export interface BenchResults {
  meta: {
    date: string;
    command: string;
    durationSeconds: number;
    machine: Machine;
    settings: Record<string, unknown>;
    partial: boolean;
    /** Sections measured again later and merged into these results (`--merge`), newest last. */
    updates?: { date: string; command: string; sections: string[] }[];
  };
  targets: Target[];
  bundles: BundleRow[];
  coldStarts: ColdRow[];
  warm: WarmResult[];
  units: UnitsRow[];
  scaling: { workspaces: { size: number; writeSeconds: number }[]; results: ScalingResult[] } | undefined;
  /** Section 5b; absent in results written before time summaries. */
  summaries?: SummaryPoint[] | undefined;
  throughput: ThroughputResult[];
  /** Absent in results written before per-client limits. */
  fairness?: FairnessResult | undefined;
  cost: CostResult | undefined;
  /** Absent in results written before events. */
  events?: EventsBenchResult | undefined;
  /** Section 10; absent in results written before invoices. */
  invoices?: InvoiceBenchResult | undefined;
  /** Section 11; absent in results written before billing runs. */
  billing?: BillingBenchResult | undefined;
  /** Section 12; absent in results written before invoice documents. */
  documents?: DocumentBenchResult | undefined;
  warnings: string[];
}
