/**
 * Local calendars of IANA time zones, from the runtime's `Intl` (full ICU: every zone and its
 * historic offsets, to the second). A date `YYYY-MM-DD` of a zone is the span of instants whose
 * wall clock there shows that date: it starts at the first instant of that date (local midnight,
 * or the end of a daylight-saving gap that swallows midnight).
 */

const DAY_MS = 86_400_000;

/** Whether a zone name is one whose calendar is UTC's at every instant. */
const isUtc = (timeZone: string) => timeZone === 'UTC' || timeZone === 'Etc/UTC';

/**
 * Formats by zone name, regardless of case as the runtime matches it: a caller's spellings are
 * many (any case of a link), the zones a few hundred, so the cache stays that small.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(timeZone: string): Intl.DateTimeFormat {
  const key = timeZone.toLowerCase();
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(key, format);
  }
  return format;
}

/**
 * True for a zone name the runtime knows (IANA names and their links, `UTC`), spelled as IANA
 * spells it: the runtime also matches `europe/paris`, which an invoice would keep and a reader's
 * own zone database (Java's, Python's) would not know.
 */
export function isTimeZone(name: string): boolean {
  if (isUtc(name)) return true;
  if (name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) return false;
  try {
    const known = formatOf(name).resolvedOptions().timeZone;
    // A link resolves to another name, whose case says nothing of the link's.
    return known === name || known.toLowerCase() !== name.toLowerCase();
  } catch {
    return false;
  }
}

/** The zone's UTC offset at `instant`, in milliseconds (whole seconds: historic offsets have them). */
export function offsetAt(timeZone: string, instant: number): number {
  // UTC needs no time zone data: the default summary then loads none (ICU's costs a cold start about 20 ms).
  if (isUtc(timeZone)) return 0;
  const parts: Record<string, string> = {};
  for (const part of formatOf(timeZone).formatToParts(new Date(instant))) parts[part.type] = part.value;
  const year = parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year);
  const wall = Date.UTC(year, Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const whole = Math.floor(instant / 1000) * 1000;
  return wall - whole;
}

/** A calendar date as days since 1970-01-01 (a number that steps by one per date). */
export type DayNumber = number;

export const dayNumberOf = (date: string): DayNumber => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
export const dateOfDayNumber = (day: DayNumber): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The first instant (epoch ms) of `day` in `timeZone`. */
export function startOfDay(timeZone: string, day: DayNumber): number {
  const wall = day * DAY_MS;
  // Midnight under the offset in force the day before, or the day after: whichever lands on midnight.
  const before = wall - offsetAt(timeZone, wall - DAY_MS);
  const after = wall - offsetAt(timeZone, wall + DAY_MS);
  const candidates = [before, after].filter((t) => t + offsetAt(timeZone, t) === wall);
  if (candidates.length > 0) return Math.min(...candidates);
  // A gap swallows midnight: the date starts where the gap ends, which is midnight under the old offset.
  return before;
}


export type Period = 'none' | 'day' | 'week' | 'month';

/** A period of a summary: its first date inside the range, and its instants [start, end). */
export interface PeriodSpan {
  firstDay: DayNumber;
  start: number;
  end: number;
}

/** The first date of the period that holds `day`: itself, its ISO week's Monday, its month's 1st. */
function periodStartOf(period: Exclude<Period, 'none'>, day: DayNumber): DayNumber {
  if (period === 'day') return day;
  if (period === 'week') return day - ((new Date(day * DAY_MS).getUTCDay() + 6) % 7);
  const d = new Date(day * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS;
}

function nextPeriodStart(period: Exclude<Period, 'none'>, first: DayNumber): DayNumber {
  if (period === 'day') return first + 1;
  if (period === 'week') return first + 7;
  const d = new Date(first * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS;
}

/**
 * The periods of [from, to) (dates, `to` exclusive), cut by the range, starting with the one that
 * holds `fromDay` (a cursor's), each with its instants in `timeZone`.
 */
export function* periodsOf(timeZone: string, period: Period, from: DayNumber, to: DayNumber, startingAt: DayNumber = from): Generator<PeriodSpan> {
  if (period === 'none') {
    if (startingAt === from) yield { firstDay: from, start: startOfDay(timeZone, from), end: startOfDay(timeZone, to) };
    return;
  }
  let first = Math.max(from, periodStartOf(period, startingAt));
  // Each period starts where the one before it ends: each boundary's instant is found once.
  let start = first < to ? startOfDay(timeZone, first) : 0;
  while (first < to) {
    const next = Math.min(to, nextPeriodStart(period, periodStartOf(period, first)));
    const end = startOfDay(timeZone, next);
    yield { firstDay: first, start, end };
    first = next;
    start = end;
  }
}
