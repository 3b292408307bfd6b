/**
 * Field schemas shared by the resources. Each carries its own messages, so a refused request
 * says what is wrong in words an integrator can act on. Limits are documented in docs/api.md.
 */
import * as v from 'valibot';

export const LIMITS = {
  nameLength: 200,
  emailLength: 254,
  addressLength: 1000,
  urlLength: 2048,
  taxIdLength: 32,
  descriptionLength: 5000,
  idLength: 64,
  searchLength: 100,
  money: 1_000_000_000,
  intervalCount: 1000,
  durationMinutes: 10_080,
  bodyBytes: 64 * 1024,
  pageSizeDefault: 25,
  pageSizeMax: 100,
} as const;

export const text = (field: string, max: number) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check((s) => s.trim().length > 0, `${field} must not be blank`),
    v.maxLength(max, `${field} must be at most ${max} characters`),
    v.metadata({ minLength: 1 }),
  );

export const email = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.maxLength(LIMITS.emailLength, `${field} must be at most ${LIMITS.emailLength} characters`),
    v.email(`${field} must be a valid email address`),
  );

export const webUrl = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.maxLength(LIMITS.urlLength, `${field} must be at most ${LIMITS.urlLength} characters`),
    v.check(isWebUrl, `${field} must be a valid http or https URL`),
    v.metadata({ format: 'uri', pattern: '^https?://' }),
  );

export const taxId = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.maxLength(LIMITS.taxIdLength, `${field} must be at most ${LIMITS.taxIdLength} characters`),
    v.regex(/^[\p{L}\p{N}][\p{L}\p{N} .\-/]*$/u, `${field} may hold only letters, digits, spaces, dots, hyphens and slashes`),
    v.metadata({ description: 'Tax identifier: letters, digits, spaces, dots, hyphens and slashes' }),
  );

export const enumOf = <const T extends readonly string[]>(field: string, values: T) =>
  v.picklist(values, `${field} must be one of ${values.join(', ')}`);

export const money = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.finite(`${field} must be a finite number`),
    v.minValue(0, `${field} must be non-negative`),
    v.maxValue(LIMITS.money, `${field} must be at most ${LIMITS.money}`),
  );

export const positiveInteger = (field: string, max: number) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.integer(`${field} must be a positive integer`),
    v.minValue(1, `${field} must be a positive integer`),
    v.maxValue(max, `${field} must be at most ${max}`),
  );

export const reference = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.minLength(1, `${field} must not be empty`),
    v.maxLength(LIMITS.idLength, `${field} must be at most ${LIMITS.idLength} characters`),
  );

function isWebUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/** ISO 8601 date-time with a time zone; normalised to UTC with milliseconds. */
export const timestamp = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check((s) => isValidTimestamp(s), `${field} must be an ISO 8601 date-time with a time zone, e.g. 2026-11-21T09:30:00Z`),
    v.metadata({ format: 'date-time', description: 'ISO 8601 date-time with a time zone; stored and returned in UTC with milliseconds' }),
    v.transform((s) => new Date(s).toISOString()),
  );

function isValidTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (!m) return false;
  const [, y, mo, d, h, mi, sec, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (year < 1900 || month < 1 || month > 12 || day < 1 || day > daysInMonth) return false;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec ?? 0) > 59) return false;
  if (oh !== undefined && (Number(oh) > 23 || Number(om) > 59)) return false;
  return !Number.isNaN(Date.parse(s));
}

/** Optional on create: absent or null both mean "no value". */
export const optionalNullable = <T extends v.GenericSchema>(schema: T) => v.optional(v.nullable(schema));
