/** Small statistics and formatting helpers of the benchmark. */

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: p99 of 1,000 samples is the 990th smallest.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const ratio = (value: number, floor: number) => (floor === 0 ? (value === 0 ? 1 : Number.POSITIVE_INFINITY) : value / floor);

export const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
export const fmtRatio = (value: number, digits = 2) => (Number.isFinite(value) ? `${value.toFixed(digits)}x` : '–');
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** A plain-text table for the terminal. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A Markdown table: columns of figures right-aligned, columns of words left-aligned. */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const escape = (c: string) => c.replaceAll('|', '\\|');
  const numeric = header.map((_, i) => i > 0 && rows.filter((r) => /^[-–$\d]/.test(r[i] ?? '')).length * 2 >= rows.length);
  return [
    `| ${header.map(escape).join(' | ')} |`,
    `|${numeric.map((n) => (n ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(escape).join(' | ')} |`),
  ].join('\n');
}
