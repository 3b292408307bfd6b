/**
 * Field schemas shared by the resources. Each carries its own messages, so a refused request
 * says what is wrong in words an integrator can act on. Limits are documented in docs/api.md.
 */
import * as v from 'valibot';
import { LIMITS } from '../core/field-limits.ts';

/** Length in Unicode code points, as JSON Schema's maxLength counts: an emoji is one character. */
export const codePointLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Not empty (a string or a list): a check, which the OpenAPI document states as minLength or minItems 1 (model/documented.ts). */
export const isNonEmpty = (value: string | readonly unknown[]) => value.length > 0;

/** At most `max` code points (not UTF-16 units); the OpenAPI document states it as maxLength. */
export const maxChars = (field: string, max: number) =>
  [v.check((s: string) => codePointLength(s) <= max, `${field} must be at most ${max} characters`), v.metadata<string, { maxLength: number }>({ maxLength: max })] as const;

/** The start of a pipe: a string of 1 to `max` code points. */
const nonEmptyString = (field: string, max: number) =>
  [v.string(`${field} must be a string`), v.check<string, `${string} must not be empty`>(isNonEmpty, `${field} must not be empty`), ...maxChars(field, max)] as const;

/**
 * A character a reader sees: a letter, digit, punctuation or symbol that is not one of Unicode's
 * default-ignorable code points (zero-width spaces, joiners, word joiners, BOM, fillers...).
 */
// (esbuild writes these two as `new RegExp`, which stays in every bundle unless marked pure.)
const VISIBLE = /* @__PURE__ */ new RegExp('(?!\\p{Default_Ignorable_Code_Point})[\\p{L}\\p{N}\\p{P}\\p{S}]', 'u');
export const hasVisibleCharacter = (s: string): boolean => VISIBLE.test(s);

/**
 * What no text field holds (contract, "Text"): control characters (C0, DEL, C1), unpaired
 * surrogates, and the bidirectional overrides and isolates that make text read otherwise than it
 * is stored (U+202A–U+202E, U+2066–U+2069). Multi-line fields also take tab, LF and CR.
 */
const HIDDEN = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/u;
const HIDDEN_MULTI_LINE = /(?![\t\n\r])[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/u;
/** A URL holds none of those, and no whitespace: refused, not trimmed (the URL parser would drop it). */
const NOT_IN_URL = /[\s\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/u;

export const isPlainText = (s: string, lines: Lines = 'single'): boolean => !(lines === 'multi' ? HIDDEN_MULTI_LINE : HIDDEN).test(s);
// Named, so the OpenAPI document can tell each check by its function (model/documented.ts).
export const isSingleLineText = (s: string): boolean => isPlainText(s, 'single');
export const isMultiLineText = (s: string): boolean => isPlainText(s, 'multi');

export type Lines = 'single' | 'multi';

const plainText = (field: string, lines: Lines = 'single') =>
  v.check(
    lines === 'multi' ? isMultiLineText : isSingleLineText,
    lines === 'multi'
      ? `${field} must not hold control characters (other than tab and line breaks), unpaired surrogates or bidirectional override characters`
      : `${field} must not hold control characters (line breaks and tabs included), unpaired surrogates or bidirectional override characters`,
  );

/** Characters no one sees (U+200B, U+180E, U+FEFF...): a URL holding one reads as another. */
const INVISIBLE = /* @__PURE__ */ new RegExp('\\p{Default_Ignorable_Code_Point}', 'u');

const urlCharacters = (field: string) =>
  [
    v.check((s: string) => !NOT_IN_URL.test(s), `${field} must not hold whitespace or control characters: percent-encode them`),
    v.check((s: string) => !INVISIBLE.test(s), `${field} must not hold invisible characters (such as U+200B or U+180E)`),
    // The WHATWG parser keeps `%zz`; RFC 3986 (and every `format: uri` check) does not.
    v.check((s: string) => !/%(?![\dA-Fa-f]{2})/.test(s), `${field} must use % only to start an escape of two hex digits (a % itself is %25)`),
  ] as const;

/** What RFC 3986 leaves out of a path, query or fragment that the WHATWG serialization keeps (`|`, `^`, `[`...). */
const NOT_URI = /[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/g;

/**
 * A URL's one spelling, as the API stores and returns it: the WHATWG serialization (lower-case
 * scheme and host, punycode, percent-encoded path, no default port), with what RFC 3986 does not
 * allow after the host percent-encoded too; undefined when it is no URL. Every tool that checks
 * `format: uri` takes it.
 */
export function canonicalUrl(s: string): string | undefined {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return undefined;
  }
  const rest = url.pathname + url.search + url.hash;
  return url.href.slice(0, url.href.length - rest.length) + rest.replace(NOT_URI, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Sent as its one spelling, but that it may leave out the `/` of an empty path and name the
 * scheme's default port (`http://localhost:80/`: the local stack wants a port); no URL at all is
 * another check's to refuse.
 */
const inCanonicalForm = (field: string) =>
  v.check(
    (s: string) => {
      const canonical = canonicalUrl(s);
      const spellings = [s, s.replace(/^(http:\/\/[^/?#]*):80(?![^/?#])|^(https:\/\/[^/?#]*):443(?![^/?#])/, '$1$2')];
      return canonical === undefined || spellings.some((spelled) => canonical === spelled || canonical === `${spelled}/`);
    },
    (issue) => `${field} must be sent in its standard form (lower-case scheme and host, punycode, percent-encoded): ${canonicalUrl(String(issue.input))}`,
  );

/** Text of at least one visible character and at most `max` code points; `lines: 'multi'` takes line breaks and tabs. */
export const text = (field: string, max: number, lines: Lines = 'single') =>
  v.pipe(
    v.string(`${field} must be a string`),
    plainText(field, lines),
    v.check(hasVisibleCharacter, `${field} must contain at least one visible character`),
    ...maxChars(field, max),
    v.metadata({ minLength: 1 }),
  );

/** A character of an RFC 5322 atom, and a domain label of letters, digits and inner hyphens (RFC 1123). */
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * A valid email address: a dot-atom local part (RFC 5322: O'Brien's, `a&b`, `+tags`) of at most 64
 * octets (RFC 5321 §4.5.3.1.1; its characters are ASCII, one octet each) at a domain name of two
 * labels or more whose last starts with a letter (`.com`, punycode `.xn--p1ai`). valibot's own
 * email pattern refuses valid ones (an apostrophe, a punycode domain).
 */
export const EMAIL = new RegExp(`^(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])$`);

export const email = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    ...maxChars(field, LIMITS.emailLength),
    v.regex(EMAIL, `${field} must be a valid email address, at most 64 characters before the @`),
    v.metadata({ format: 'email' }),
  );

export const webUrl = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    ...maxChars(field, LIMITS.urlLength),
    ...urlCharacters(field),
    v.check(isWebUrl, `${field} must be a valid http or https URL`),
    inCanonicalForm(field),
    v.metadata({ format: 'uri' }),
  );

/** A webhook URL's metadata; the OpenAPI document adds its pattern (model/documented.ts). */
export const WEBHOOK_URL = { format: 'uri' } as const;

/**
 * A webhook endpoint's URL: its syntax only. Whether it may receive webhooks (scheme, host, what
 * it resolves to) is the SSRF check of domain/webhook-endpoints.ts, made at create, update and
 * each delivery.
 */
export const webhookUrl = (field: string) => v.pipe(...nonEmptyString(field, LIMITS.urlLength), ...urlCharacters(field), inCanonicalForm(field), v.metadata(WEBHOOK_URL));

/** A tax identifier: a letter or digit (any script), then letters, digits, spaces, dots, hyphens and slashes. */
export const TAX_ID = /^[\p{L}\p{N}][\p{L}\p{N} .\-/]*$/u;

export const taxId = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    ...maxChars(field, LIMITS.taxIdLength),
    v.regex(TAX_ID, `${field} may hold only letters, digits, spaces, dots, hyphens and slashes`),
    v.metadata({ description: 'Tax identifier: letters, digits, spaces, dots, hyphens and slashes' }),
  );

export const enumOf = <const T extends readonly string[]>(field: string, values: T) =>
  v.picklist(values, `${field} must be one of ${values.join(', ')}`);

/**
 * True when `n` is a decimal with at most `places` decimal places, as the caller wrote it: the
 * double nearest to k / 10^places round-trips through that division, any other double does not
 * (0.30000000000000004, 1e-131). This also keeps every amount inside DynamoDB's number range.
 */
export const hasAtMostDecimals = (n: number, places: number): boolean => {
  const scale = 10 ** places;
  return Math.round(n * scale) / scale === n;
};
export const hasMoneyDecimals = (n: number): boolean => hasAtMostDecimals(n, LIMITS.moneyDecimals);

/** Money: 0 to 1,000,000,000 with at most 4 decimal places. */
export const money = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.finite(`${field} must be a finite number`),
    v.minValue(0, `${field} must be non-negative`),
    v.maxValue(LIMITS.money, `${field} must be at most ${LIMITS.money}`),
    v.check(hasMoneyDecimals, `${field} must have at most ${LIMITS.moneyDecimals} decimal places`),
    v.metadata({ description: `From 0 to ${LIMITS.money} with at most ${LIMITS.moneyDecimals} decimal places` }),
  );

export const hasPercentDecimals = (n: number): boolean => hasAtMostDecimals(n, LIMITS.percentDecimals);

/** From 0 to 100: the OpenAPI document states it as minimum and maximum (model/documented.ts). */
export const isPercentage = (n: number): boolean => n >= 0 && n <= LIMITS.percent;

/**
 * A percentage (an invoice's discount or tax rate): 0 to 100 with at most 3 decimal places. Its
 * rules are checks (no finite, minValue or maxValue actions): an invoice's create, its only
 * number, then holds none of those actions.
 */
export const percent = (field: string) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.check((n: number) => Number.isFinite(n), `${field} must be a finite number`),
    v.check(isPercentage, `${field} must be a percentage from 0 to ${LIMITS.percent}`),
    // Its description is the OpenAPI document's (model/documented.ts), told by this check.
    v.check(hasPercentDecimals, `${field} must have at most ${LIMITS.percentDecimals} decimal places`),
  );

let currencies: ReadonlySet<string> | undefined;
/** An ISO 4217 code this runtime's Intl knows (upper case); the set is built on first use. */
export const isKnownCurrency = (code: string): boolean =>
  /^[A-Z]{3}$/.test(code) && (currencies ??= new Set(Intl.supportedValuesOf('currency'))).has(code);

/** A currency: an upper-case ISO 4217 alphabetic code that the runtime knows. */
export const currencyCode = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check(isKnownCurrency, `${field} must be an upper-case ISO 4217 currency code, such as USD, EUR, JPY or KWD`),
    v.metadata({ pattern: '^[A-Z]{3}$', description: 'An upper-case ISO 4217 alphabetic currency code (USD, EUR, JPY, KWD, ...)' }),
  );

export const positiveInteger = (field: string, max: number) =>
  v.pipe(
    v.number(`${field} must be a number`),
    v.integer(`${field} must be a positive integer`),
    v.minValue(1, `${field} must be a positive integer`),
    v.maxValue(max, `${field} must be at most ${max}`),
  );

export const reference = (field: string) => v.pipe(...nonEmptyString(field, LIMITS.idLength), plainText(field));

export function isWebUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** RFC 3339 date-time: seconds required, fraction optional, `Z` or a numeric offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * The instant an RFC 3339 date-time names, in milliseconds since the epoch; undefined when the
 * text is not one, or its UTC year falls outside 1900..9999 (what a stored timestamp may hold, so
 * every stored one has the same width and order rules can compare instants).
 */
export function instantOf(s: string): number | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || sec > 59) return undefined;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return undefined;
  const ms = Date.parse(s.toUpperCase());
  if (Number.isNaN(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  return year >= LIMITS.yearMin && year <= LIMITS.yearMax ? ms : undefined;
}

export const isTimestamp = (s: string): boolean => instantOf(s) !== undefined;

/** A list that holds no value twice. */
export const isUniqueList = <T>(values: T[]): boolean => new Set(values).size === values.length;

/** RFC 3339 date-time, UTC year 1900..9999; normalised to UTC with milliseconds. */
export const timestamp = (field: string) =>
  v.pipe(
    v.string(`${field} must be a string`),
    v.check(
      isTimestamp,
      `${field} must be an RFC 3339 date-time with seconds and a time zone, from year ${LIMITS.yearMin} to ${LIMITS.yearMax} in UTC, e.g. 2026-11-21T09:30:00Z`,
    ),
    v.metadata({
      format: 'date-time',
      description: `RFC 3339 date-time with seconds and a time zone (Z or an offset); its UTC year must be from ${LIMITS.yearMin} to ${LIMITS.yearMax}. Stored and returned in UTC with milliseconds`,
    }),
    v.transform((s) => new Date(instantOf(s)!).toISOString()),
  );

