/**
 * What the OpenAPI document states for the checks the field schemas run (fields.ts): the same
 * rule in JSON Schema, as a pattern or `uniqueItems`, for generators and fuzzers.
 * Each check is told by its function; only scripts/openapi-document.ts imports this module, so
 * these strings reach no Lambda bundle. What no schema can say stays in the descriptions.
 */
import { toJsonSchema, type OverrideActionContext } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { isTimeZone } from '../core/calendar.ts';
import { hasAtMostProjects } from './invoice-fields.ts';
import { LIMITS } from '../core/field-limits.ts';
import { TAX_ID, WEBHOOK_URL, hasMoneyDecimals, hasPercentDecimals, isNonEmpty, isPercentage, hasVisibleCharacter, isMultiLineText, isSingleLineText, isTimestamp, isUniqueList, isWebUrl, type Lines } from './fields.ts';

type Json = Record<string, unknown>;

/** The characters no text holds (isPlainText), as a class body: controls, bidirectional overrides. */
const HIDDEN = '\\x00-\\x1F\\x7F-\\x9F\\u202A-\\u202E\\u2066-\\u2069';
const HIDDEN_MULTI_LINE = HIDDEN.replace('\\x00-\\x1F', '\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F');
const hidden = (lines: Lines) => (lines === 'multi' ? HIDDEN_MULTI_LINE : HIDDEN);

/** Plain text: no hidden character. ECMA-262 without \p{…}, so every tool reads it. */
const plainPattern = (lines: Lines) => `^[^${hidden(lines)}]*$`;
/**
 * Plain text with a character that is not whitespace: allowed whitespace, then one such
 * character, then plain text (linear to match). Default-ignorable characters alone, and unpaired
 * surrogates, no portable pattern says; the API refuses them too.
 */
export const textPattern = (lines: Lines) => `^[^\\S${hidden(lines)}]*[^\\s${hidden(lines)}][^${hidden(lines)}]*$`;

const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?';
const OFFSET = '(?:[01]\\d|2[0-3]):[0-5]\\d';
/**
 * RFC 3339 date-time with seconds and a zone, each field in its range, years from 1900 as
 * written, or 1899-12-31 with a negative offset (UTC year 1900 at the late hours): the UTC year
 * the API checks comes after the offset, which a pattern can only approach from the wide side.
 */
export const DATE_TIME_PATTERN =
  `^(?:(?:19|[2-9]\\d)\\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])[Tt]${TIME}(?:[Zz]|[+-]${OFFSET})|1899-12-31[Tt]${TIME}-${OFFSET})$`;

/**
 * The characters of a URL in the form the API takes (fields.ts canonicalUrl): RFC 3986's, so
 * ASCII only, a `%` only as an escape of two hex digits; the authority's (brackets for an IPv6
 * literal), and those after it.
 */
const charOf = (set: string) => `(?:[${set}]|%[0-9A-Fa-f]{2})`;
const AUTHORITY = charOf("A-Za-z0-9\\-._~:@!$&'()*+,;=\\[\\]");
const AFTER_AUTHORITY = charOf("A-Za-z0-9\\-._~:/?#@!$&'()*+,;=");

/** An http(s) URL with a host: what isWebUrl takes, in the form the API takes. */
const WEB_URL_PATTERN = `^https?://${AUTHORITY}+(?:[/?#]${AFTER_AUTHORITY}*)?$`;

/**
 * TAX_ID without \p{…}, which tools that compile patterns without the `u` flag (spectral's
 * example check among them) read as literal text: exact in ASCII; beyond it, any character
 * from U+00AA (the API takes the letters and digits among them).
 */
const TAX_ID_PATTERN = '^[A-Za-z0-9\\u00AA-\\uFFFF][A-Za-z0-9\\u00AA-\\uFFFF .\\-/]*$';

/**
 * A webhook URL: https:// and a dotted host (or an IPv6 literal), no credentials (what
 * core/ssrf.ts takes before its address checks); or the local stack's loopback form.
 */
const HOST = charOf("A-Za-z0-9\\-._~:!$&'()*+,;=");
const WEBHOOK_URL_PATTERN = `^(?:https://(?:${HOST}*\\.${HOST}*|\\[[0-9A-Fa-f:.]+\\](?::\\d+)?)|http://(?:127\\.0\\.0\\.1|localhost):\\d+)(?:[/?#]${AFTER_AUTHORITY}*)?$`;

/**
 * The JSON Schema of a pipe after one of its actions, when the document says more than the
 * converter (@valibot/to-json-schema's overrideAction); undefined leaves the conversion as is.
 */
export function documentAction(action: { type: string; requirement?: unknown; metadata?: unknown }, converted: Json): Json | undefined {
  const { type, requirement } = action;
  if (type === 'regex' && requirement === TAX_ID) return { ...converted, pattern: TAX_ID_PATTERN };
  if (type === 'metadata' && action.metadata === WEBHOOK_URL) return { ...converted, ...WEBHOOK_URL, pattern: WEBHOOK_URL_PATTERN };
  if (type !== 'check') return undefined;
  switch (requirement) {
    case isNonEmpty:
      return { ...converted, [converted.type === 'array' ? 'minItems' : 'minLength']: 1 };
    case isSingleLineText:
      return { ...converted, pattern: plainPattern('single') };
    case isMultiLineText:
      return { ...converted, pattern: plainPattern('multi') };
    case hasVisibleCharacter: {
      const lines = (['single', 'multi'] as const).find((l) => converted.pattern === plainPattern(l));
      return { ...converted, pattern: lines ? textPattern(lines) : '\\S' };
    }
    case hasMoneyDecimals:
      // In words only (the field's description): `multipleOf: 0.0001` makes validators that divide
      // doubles (Prism, a default ajv) refuse 12.34 and 19.99, and JSON Schema has no exact form.
      return converted;
    case isPercentage:
      return { ...converted, minimum: 0, maximum: LIMITS.percent };
    case hasPercentDecimals:
      // Likewise; the description is said here, not in the schema a function builds (fields.ts percent).
      return { ...converted, description: `A percentage from 0 to ${LIMITS.percent} with at most ${LIMITS.percentDecimals} decimal places` };
    case isTimeZone:
      return { ...converted, description: 'An IANA time zone name (Europe/Paris, Asia/Kathmandu); the days, weeks and months are those of this zone' };
    case isTimestamp:
      return { ...converted, pattern: DATE_TIME_PATTERN };
    case isWebUrl:
      return { ...converted, pattern: WEB_URL_PATTERN };
    case isUniqueList:
      return { ...converted, uniqueItems: true };
    case hasAtMostProjects:
      return { ...converted, maxItems: LIMITS.invoiceProjects };
    default:
      return undefined;
  }
}

/**
 * A valibot schema as the OpenAPI document states it (JSON Schema 2020-12, with the rules above).
 * The rules across fields (model/cross-field.ts, a rawCheck) have no JSON Schema: the document
 * says them in words (the operations' and the fields' descriptions) and a create's one-of as `anyOf`.
 */
export function documentedJsonSchema(schema: v.GenericSchema): Json {
  const overrideAction = ({ valibotAction, jsonSchema }: OverrideActionContext) => documentAction(valibotAction, jsonSchema as Json);
  const { $schema: _ignored, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore', ignoreActions: ['raw_check'], overrideAction }) as Json;
  return rest;
}
