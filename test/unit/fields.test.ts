/** The field schemas: each rule, and each message naming its field. */
import { documentedJsonSchema } from '../../shared/model/documented.ts';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { canonicalUrl, EMAIL, email, enumOf, instantOf, money, percent, positiveInteger, reference, taxId, text, timestamp, webUrl, webhookUrl } from '../../shared/model/fields.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { toFieldErrors, parseOrThrow } from '../../shared/model/parse.ts';
import { ApiError } from '../../shared/core/errors.ts';

const messageOf = (schema: v.GenericSchema, input: unknown) => {
  const out = v.safeParse(schema, input);
  if (out.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  return out.issues[0].message;
};
const accepts = (schema: v.GenericSchema, input: unknown) => v.safeParse(schema, input).success;
/** As the OpenAPI document states a field (its checks' rules as patterns, multipleOf...). */
const json = documentedJsonSchema;

describe('messages name the field and the rule', () => {
  it.each([
    [text('f', 3), 1, 'f must be a string'],
    [text('f', 3), ' \u200b', 'f must contain at least one visible character'],
    [text('f', 3), 'abcd', 'f must be at most 3 characters'],
    [email('f'), 1, 'f must be a string'],
    [email('f'), 'nope', 'f must be a valid email address, at most 64 characters before the @'],
    [webUrl('f'), 1, 'f must be a string'],
    [webUrl('f'), 'ftp://x.test', 'f must be a valid http or https URL'],
    [taxId('f'), 1, 'f must be a string'],
    [taxId('f'), '#1', 'f may hold only letters, digits, spaces, dots, hyphens and slashes'],
    [enumOf('f', ['A', 'B']), 'C', 'f must be one of A, B'],
    [money('f'), '1', 'f must be a number'],
    [money('f'), Infinity, 'f must be a finite number'],
    [money('f'), -1, 'f must be non-negative'],
    [positiveInteger('f', 9), '1', 'f must be a number'],
    [positiveInteger('f', 9), 1.5, 'f must be a positive integer'],
    [positiveInteger('f', 9), 0, 'f must be a positive integer'],
    [positiveInteger('f', 9), 10, 'f must be at most 9'],
    [reference('f'), 1, 'f must be a string'],
    [reference('f'), '', 'f must not be empty'],
    [reference('f'), 'x'.repeat(65), 'f must be at most 64 characters'],
    [reference('f'), 'a\nb', 'f must not hold control characters (line breaks and tabs included), unpaired surrogates or bidirectional override characters'],
    [webhookUrl('f'), 1, 'f must be a string'],
    [webhookUrl('f'), '', 'f must not be empty'],
    [webhookUrl('f'), `https://a.test/${'x'.repeat(2048)}`, 'f must be at most 2048 characters'],
    [webhookUrl('f'), 'https://a.test/a b', 'f must not hold whitespace or control characters: percent-encode them'],
    [timestamp('f'), 1, 'f must be a string'],
  ] as const)('%#', (schema, input, message) => {
    expect(messageOf(schema, input)).toBe(message);
  });

  it('money: the range and the decimals say their limits', () => {
    expect(messageOf(money('f'), 2_000_000_000)).toMatch(/^f must be at most \d/);
    expect(messageOf(money('f'), 1.00001)).toBe('f must have at most 4 decimal places');
    expect(messageOf(timestamp('f'), 'x')).toMatch(/^f must be an RFC 3339 date-time with seconds and a time zone, from year 1900 to 9999/);
  });
});

describe('rules', () => {
  it('web URLs: http and https with a host only', () => {
    for (const url of ['http://a.test', 'https://a.test/x?y#z']) expect(accepts(webUrl('w'), url), url).toBe(true);
    for (const url of ['ftp://a.test', 'mailto:a@b.test', 'http://', 'https:', 'not a url', 'file:///etc/passwd']) expect(accepts(webUrl('w'), url), url).toBe(false);
  });

  it('URLs (website, webhook url): only in their standard form, which validates against the document; no invisible character', () => {
    // Spellings a fuzzer sent, each refused with the form to send (the WHATWG serialization, RFC 3986's characters).
    const refused: [string, string | undefined][] = [
      ['http://127.0.0.1:9/\u00fcn\u00ef/\u{1F600}', 'http://127.0.0.1:9/%C3%BCn%C3%AF/%F0%9F%98%80'],
      ['https://caf\u00e9.test/', 'https://xn--caf-dma.test/'],
      ['HTTP://a.test/', 'http://a.test/'],
      ['https://Acme.test', 'https://acme.test/'],
      ['http:/host', 'http://host/'],
      ['http:\\\\host\\x', 'http://host/x'],
      ['https://a.test/a|b^c?q={x}', 'https://a.test/a%7Cb%5Ec?q=%7Bx%7D'],
      ['https://a.test/a[b]', 'https://a.test/a%5Bb%5D'],
    ];
    for (const schema of [webUrl('url'), webhookUrl('url')]) {
      for (const [url, canonical] of refused) {
        expect(canonicalUrl(url), url).toBe(canonical);
        expect(messageOf(schema, url), url).toBe(`url must be sent in its standard form (lower-case scheme and host, punycode, percent-encoded): ${canonical}`);
      }
      for (const url of ['https://a\u200bb.test/', 'https://a.test/\u180e', 'https://a.test/?q=\u2060', 'https://a\u00adb.test/']) {
        expect(messageOf(schema, url), JSON.stringify(url)).toBe('url must not hold invisible characters (such as U+200B or U+180E)');
      }
    }
    // What is taken validates as the document states it (format uri and the pattern), with a default ajv.
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const documented = ajv.compile(json(webUrl('w')));
    const taken = ['https://acme.test', 'https://acme.test/', 'https://xn--caf-dma.test/a%20b?q=%C3%A9#f', 'http://127.0.0.1:9/hooks', 'https://[::1]:8443/x', 'https://a.test/%7c', 'http://localhost:80/hooks', 'https://a.test:443'];
    for (const url of taken) {
      expect(accepts(webUrl('w'), url), url).toBe(true);
      expect(documented(url), `${url}: ${ajv.errorsText(documented.errors)}`).toBe(true);
    }
    // The spellings that are no valid URI fail the document too (an upper-case host is a valid URI, refused for one spelling).
    for (const [url] of refused.filter(([url]) => !/Acme/.test(url))) expect(documented(url), url).toBe(false);
  });

  it('emails: every valid address is taken (RFC 5322 dot-atom local part, LDH domain labels), and only those', () => {
    const valid = ['billing@acme.test', "o'brien@acme.test", 'a&b@acme.test', 'first.last+tag@sub.acme.co.uk', 'x{y}|z~@acme.test', 'user@xn--bcher-kva.example', 'user@acme.xn--p1ai', 'USER@ACME.TEST', 'a@b-c.d1.test'];
    for (const address of valid) expect(accepts(email('e'), address), address).toBe(true);
    const invalid = ['nope', 'billing@', '@acme.test', '0@com', 'user@localhost', 'a..b@acme.test', '.a@acme.test', 'a.@acme.test', 'a b@acme.test', 'a@b@acme.test', 'user@-acme.test', 'user@acme-.test', 'user@acme..test', 'user@sub_domain.acme.test', 'x@123.123.123.123', 'user@acme.test.', 'a"b@acme.test'];
    for (const address of invalid) expect(accepts(email('e'), address), address).toBe(false);
  });

  it('emails: a local part of at most 64 octets (RFC 5321), in the schema and in the documented pattern alike', () => {
    const pattern = new RegExp(json(email('e')).pattern as string);
    for (const local of ['x'.repeat(64), `${'a.'.repeat(31)}ab`]) {
      expect(accepts(email('e'), `${local}@acme.test`), local).toBe(true);
      expect(pattern.test(`${local}@acme.test`), local).toBe(true);
    }
    for (const local of ['x'.repeat(65), `${'a.'.repeat(32)}a`]) {
      expect(messageOf(email('e'), `${local}@acme.test`), local).toBe('e must be a valid email address, at most 64 characters before the @');
      expect(pattern.test(`${local}@acme.test`), local).toBe(false);
    }
  });

  it('tax ids: letters or digits first, then letters, digits, spaces, dots, hyphens and slashes, to the end', () => {
    for (const id of ['1', 'BN 1', 'TVQ/3', 'é-2.3', '٣']) expect(accepts(taxId('t'), id), id).toBe(true);
    for (const id of ['-1', ' 1', '.1', '1#', '1_', 'a\n', '#']) expect(accepts(taxId('t'), id), id).toBe(false);
  });

  it('timestamps: calendar days and hours that Date.parse would let through are refused', () => {
    for (const s of ['2026-02-30T00:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-32T00:00:00Z']) expect(instantOf(s), s).toBeUndefined();
    expect(instantOf('2024-02-29T00:00:00Z')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(instantOf('2026-01-01t10:00:00z')).toBe(Date.parse('2026-01-01T10:00:00Z'));
    expect(instantOf('2026-01-01T10:00:00+02:30')).toBe(Date.parse('2026-01-01T07:30:00Z'));
    // The largest offsets are valid ones.
    expect(instantOf('2026-01-01T23:00:00+23:00')).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(instantOf('2026-01-01T10:59:00+00:59')).toBe(Date.parse('2026-01-01T10:00:00Z'));
    for (const s of ['2026-01-01T10:00:00+24:00', '2026-01-01T10:00:00+23:60', '2026-01-01T10:00Z', 'x2026-01-01T10:00:00Z', '2026-01-01T10:00:00Zx', '2026-01-01 10:00:00Z']) {
      expect(instantOf(s), s).toBeUndefined();
    }
    expect(instantOf('1900-01-01T00:00:00Z')).toBe(Date.parse('1900-01-01T00:00:00Z'));
    expect(instantOf('1899-12-31T23:59:59Z')).toBeUndefined();
    expect(instantOf('1900-01-01T00:30:00+01:00')).toBeUndefined();
  });

  it('say their shape to the OpenAPI document', () => {
    expect(json(email('e'))).toMatchObject({ type: 'string', format: 'email', maxLength: 254, pattern: EMAIL.source });
    expect(json(webUrl('w'))).toMatchObject({ type: 'string', format: 'uri' });
    const webUrlPattern = new RegExp(String(json(webUrl('w')).pattern));
    expect(['https://acme.test/100%25?q=%7c', 'http://[::1]:8080/a'].every((u) => webUrlPattern.test(u))).toBe(true);
    expect(['https://acme.test/%zz', 'https://acme.test/?a=%', 'ftp://acme.test/', 'https://caf\u00e9.test/'].some((u) => webUrlPattern.test(u))).toBe(false);
    const timestampPattern = new RegExp(String(json(timestamp('t')).pattern));
    // UTC year 1900 may be written on 1899-12-31 with a negative offset; the pattern is never the narrower.
    expect(['1900-01-01T00:00:00Z', '1899-12-31T23:30:00-01:00', '9999-12-31T23:59:59.999+00:00'].every((t) => timestampPattern.test(t))).toBe(true);
    expect(['1899-12-31T23:59:59Z', '1899-12-31T23:30:00+01:00', '2026-01-01T10:30Z', '2026-01-01T24:00:00Z'].some((t) => timestampPattern.test(t))).toBe(false);
    // The 4 decimal places in words only: validators dividing doubles refuse 12.34 under multipleOf 0.0001.
    expect(json(money('m'))).not.toHaveProperty('multipleOf');
    expect(String(json(money('m')).description)).toMatch(/at most 4 decimal places$/);
    expect(json(text('t', 5, 'multi')).pattern).toContain('\\x0E-\\x1F');
    expect(json(taxId('t'))).toMatchObject({ description: 'Tax identifier: letters, digits, spaces, dots, hyphens and slashes' });
    expect(json(timestamp('t'))).toMatchObject({ format: 'date-time' });
    expect(String(json(timestamp('t')).description)).toMatch(/^RFC 3339 date-time/);
    expect(json(text('t', 5))).toMatchObject({ minLength: 1, maxLength: 5 });
    expect(String(json(money('m')).description)).toMatch(/^From 0 to /);
    // A percentage's 3 decimals in words too, and its range as bounds.
    expect(json(percent('p'))).toMatchObject({ type: 'number', minimum: 0, maximum: 100, description: 'A percentage from 0 to 100 with at most 3 decimal places' });
    expect(json(percent('p'))).not.toHaveProperty('multipleOf');
  });
});

describe('field errors', () => {
  it('name the body when the input is not an object, and a field once however many rules it breaks', () => {
    const out = v.safeParse(v.strictObject({ a: text('a', 1) }), 'x');
    expect(toFieldErrors(out.issues!)).toEqual([{ param: 'body', message: expect.any(String) }]);
    const twice = v.safeParse(v.strictObject({ a: text('a', 1) }), { a: ' \u200b' }, { abortEarly: false });
    expect(toFieldErrors(twice.issues!)).toEqual([{ param: 'a', message: 'a must contain at least one visible character' }]);
  });

  it('say "field" by default, and what is missing, unknown or null, in objects strict or not', () => {
    const strict = v.safeParse(v.strictObject({ a: text('a', 5) }), { b: 1 }, { abortEarly: false });
    expect(toFieldErrors(strict.issues!)).toEqual([
      { param: 'a', message: 'a is required' },
      { param: 'b', message: 'b is not a known field' },
    ]);
    const loose = v.safeParse(v.object({ a: text('a', 5) }), {});
    expect(toFieldErrors(loose.issues!, 'query parameter')).toEqual([{ param: 'a', message: 'a is required' }]);
    const nulled = v.safeParse(v.strictObject({ a: text('a', 5) }), { a: null });
    expect(toFieldErrors(nulled.issues!)).toEqual([{ param: 'a', message: 'a cannot be null' }]);
    // A null refused by a rule of the value (not its type) keeps the rule's message.
    const ruled = v.safeParse(v.strictObject({ a: v.pipe(v.unknown(), v.check(() => false, 'a is wrong')) }), { a: null });
    expect(toFieldErrors(ruled.issues!)).toEqual([{ param: 'a', message: 'a is wrong' }]);
    // A type error keeps its own message; a rule broken by an absent optional value is not "required".
    const typed = v.safeParse(v.strictObject({ a: text('a', 5) }), { a: 1 });
    expect(toFieldErrors(typed.issues!)).toEqual([{ param: 'a', message: 'a must be a string' }]);
    const absent = v.safeParse(v.strictObject({ a: v.pipe(v.optional(v.string()), v.check(() => false, 'a is wrong')) }), { a: undefined });
    expect(toFieldErrors(absent.issues!)).toEqual([{ param: 'a', message: 'a is wrong' }]);
    // A field given as undefined by the caller's object is "required" only at the object level.
    const inner = v.safeParse(v.strictObject({ a: v.strictObject({ b: text('b', 5) }) }), { a: {} });
    expect(toFieldErrors(inner.issues!)).toEqual([{ param: 'a.b', message: 'a.b is required' }]);
  });

  it('are thrown as one 400 listing every field', () => {
    try {
      parseOrThrow(v.strictObject({ a: text('a', 1), b: text('b', 1) }), {});
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).errors?.map((e) => e.param)).toEqual(['a', 'b']);
    }
  });
});
