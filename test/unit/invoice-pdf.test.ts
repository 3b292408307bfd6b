/**
 * The invoice PDF's parts that need no stack (shared/document/): the font draws every assigned
 * character of the blocks the contract names, text the font lacks is one `?` per code point of
 * its NFC form, labels in one or both languages, numbers and dates as Intl writes them for fr-CA
 * and en-CA (hours half up, rates up to 4 decimals, tax rates up to 3), and the same bytes for
 * the same invoice.
 */
import fontkit from '@pdf-lib/fontkit';
import { describe, expect, it } from 'vitest';
import { readFont } from '../../shared/document/font.ts';
import { formatsOf } from '../../shared/document/format.ts';
import { drawable, documentFileName, languagesOf, pdfRenderer, type InvoiceDocument } from '../../shared/document/invoice-pdf.ts';
import { say } from '../../shared/document/labels.ts';
import { getDocumentProxy } from 'unpdf';
import { QPDF, qpdfCheck } from '../support/pdf.ts';

const FONT = readFont();
const codePoints = new Set(fontkit.create(FONT).characterSet);

describe('the font', () => {
  it('draws every assigned character of Latin (to Extended-B), Greek and Cyrillic, and the spaces and signs Intl and text use', () => {
    const blocks: [number, number][] = [[0x20, 0x7e], [0xa0, 0x24f], [0x370, 0x3ff], [0x400, 0x4ff]];
    const missing: string[] = [];
    for (const [first, last] of blocks) {
      for (let cp = first; cp <= last; cp++) if (/\p{Assigned}/u.test(String.fromCodePoint(cp)) && !codePoints.has(cp)) missing.push(cp.toString(16));
    }
    expect(missing).toEqual([]);
    for (const char of '\u00a0\u202f’–…€£¥«»') expect(codePoints.has(char.codePointAt(0)!), char).toBe(true);
  });
});

describe('drawable text', () => {
  it('is NFC, tabs as spaces, and one ? per code point the font lacks', () => {
    expect(drawable('e\u0301te\u0301\tΩ Ж', codePoints)).toBe('été Ω Ж');
    expect(drawable('株式会社 क्ष \u0000', codePoints)).toBe('???? ??? ?');
    expect(drawable('\ud800x', codePoints)).toBe('?x');
  });
});

describe('labels', () => {
  it('say French, English, or French then English, once where both are the same', () => {
    expect(say(['fr'], 'invoice')).toBe('Facture');
    expect(say(['en'], 'page', { k: '1', n: '2' })).toBe('Page 1 of 2');
    expect(say(['fr', 'en'], 'page', { k: '1', n: '2' })).toBe('Page 1 de 2 / Page 1 of 2');
    expect(say(['fr', 'en'], 'total')).toBe('Total');
  });

  it("follow the recipient's language, and the profile's bilingual_invoices for English", () => {
    expect(languagesOf({ bilingual_invoices: true }, { language: 'FRENCH' })).toEqual(['fr']);
    expect(languagesOf({ bilingual_invoices: false }, { language: 'ENGLISH' })).toEqual(['en']);
    expect(languagesOf({ bilingual_invoices: true }, { language: 'ENGLISH' })).toEqual(['fr', 'en']);
    expect(documentFileName({ number: 'INV-000042', id: 'inv_1' })).toBe('INV-000042.pdf');
    expect(documentFileName({ number: null, id: 'inv_1' })).toBe('inv_1.pdf');
  });
});

describe('numbers and dates', () => {
  const fr = formatsOf('fr-CA', 'CAD');
  const en = formatsOf('en-CA', 'CAD');
  it("write amounts with the currency's digits, exactly, from their decimal strings", () => {
    expect([fr.money('1234.56'), en.money('1234.56'), fr.money('-12.00')]).toEqual(['1\u00a0234,56\u00a0$', '$1,234.56', '-12,00\u00a0$']);
    expect(en.money('90071992547409.93')).toBe('$90,071,992,547,409.93');
    expect([formatsOf('en-CA', 'JPY').money('1235'), formatsOf('en-CA', 'KWD').money('12.345')]).toEqual(['JP¥1,235', 'KWD\u00a012.345']);
  });

  it('write hours half up to 2 decimals, prices up to 4, quantities up to 4, tax rates up to 3', () => {
    expect([1, 2, 3, 90, 61].map(fr.hours)).toEqual(['0,02', '0,03', '0,05', '1,50', '1,02']);
    expect([fr.price(95.5), fr.price(87.3333), en.price(0.1)]).toEqual(['95,50\u00a0$', '87,3333\u00a0$', '$0.10']);
    expect([fr.quantity(1.5), en.quantity(2), en.quantity(0.12345)]).toEqual(['1,5', '2', '0.1235']);
    expect([fr.percent(9.975), en.percent(5), fr.percent(12.5)]).toEqual(['9,975\u00a0%', '5%', '12,5\u00a0%']);
  });

  it('write dates in the long style, a period by its first and last day', () => {
    expect([fr.date('2026-12-01'), en.date('2026-12-01')]).toEqual(['1 décembre 2026', 'December 1, 2026']);
    expect([fr.dayBefore('2027-01-01'), en.dayBefore('2026-03-01')]).toEqual(['31 décembre 2026', 'February 28, 2026']);
  });
});

describe('the document', () => {
  const render = pdfRenderer(FONT);
  const document = (amount: string): InvoiceDocument => ({
    invoice: {
      object: 'invoice', id: 'inv_01', client_id: 'cli_01', status: 'open', number: 'INV-000001', currency: 'CAD', timezone: 'UTC', period_start: null, period_end: null, project_ids: null,
      lines: [{ kind: 'item', project_id: null, description: 'Audit', quantity: 1, unit_price: 100, amount, taxable: true }], time_entry_count: 0,
      subtotal: amount, discount_rate: 0, discount_amount: '0.00', tax_rate: 0, taxes: [], tax_amount: '0.00', total: amount, amount_paid: '0.00', amount_due: amount,
      memo: null, purchase_order: null, issue_date: '2026-12-01', due_date: null, finalized_at: '2026-12-01T00:00:00.000Z', paid_at: null, voided_at: null,
      issuer: null, recipient: null, billing_run_id: null, workspace_id: 'ws', created_at: '2026-12-01T00:00:00.000Z', updated_at: '2026-12-01T00:00:00.000Z',
    } as InvoiceDocument['invoice'],
    issuer: { company_name: 'Studio', company_email: null, company_address: null, website: null, phone: null, business_number: null, tps_number: null, tvq_number: null, invoice_footer: null, bilingual_invoices: false },
    recipient: { company_name: 'Client', company_email: null, company_address: null, business_number: null, tps_number: null, tvq_number: null, language: 'ENGLISH' },
  });

  it("draws an amount too wide for its column smaller, inside the column's bounds", async () => {
    const pdf = await getDocumentProxy(await render(document('9999999999999.99')));
    const { items } = await (await pdf.getPage(1)).getTextContent();
    const amounts = (items as { str: string; transform: number[]; width: number }[]).filter((item) => item.str === '$9,999,999,999,999.99');
    // The line's amount, the subtotal, the total and the amount due: each between the rate column's edge (484) and the margin (564).
    expect(amounts).toHaveLength(4);
    for (const { transform, width } of amounts) {
      expect(transform[4]).toBeGreaterThanOrEqual(484);
      expect(transform[4]! + width).toBeLessThanOrEqual(564.01);
    }
  });

  it('is the same bytes for the same invoice, and other bytes when an amount changes', async () => {
    const [a, b, c] = [await render(document('100.00')), await render(document('100.00')), await render(document('100.01'))];
    expect(Buffer.from(a).toString('latin1', 0, 8)).toBe('%PDF-1.7');
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(c))).toBe(false);
    // No clock: no creation or modification date, no producer.
    expect(Buffer.from(a).toString('latin1')).not.toMatch(/CreationDate|ModDate|Producer/);
    // qpdf (Debian's package) where it is installed; CI installs nothing.
    if (QPDF) for (const bytes of [a, c]) expect(qpdfCheck(bytes).status).toBe(0);
  });
});
