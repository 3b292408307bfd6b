/**
 * CSV (RFC 4180) of a list's page, for accountants and spreadsheets (contract, "CSV and bulk
 * import"): a header row of the object's fields in the JSON's order, one row an object, CRLF line
 * ends, UTF-8 without a byte-order mark. null is an empty cell, booleans and numbers as JSON writes
 * them, arrays and objects as their JSON text; a text cell that a spreadsheet would read as a
 * formula (it begins with =, +, -, @, a tab or a carriage return) is written with a leading `'`
 * (OWASP's advice). Amounts are never negative, so no amount begins with one of those.
 */
export const CSV_TYPE = 'text/csv';
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

const FORMULA = /^[=+\-@\t\r]/;
const QUOTED = /[",\r\n]/;

function cellOf(value: unknown): string {
  const text =
    value === null || value === undefined ? ''
    : typeof value === 'string' ? (FORMULA.test(value) ? `'${value}` : value)
    : typeof value === 'object' ? JSON.stringify(value)
    : String(value);
  return QUOTED.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The page as CSV: the header row of `columns`, then each row's cells in that order. */
export function csvOf(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  return [columns.map(cellOf), ...rows.map((row) => columns.map((column) => cellOf(row[column])))].map((cells) => `${cells.join(',')}\r\n`).join('');
}
