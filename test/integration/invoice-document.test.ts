/**
 * An invoice's document over HTTP (contract, "Business profile and the invoice document";
 * decision 0034): the PDF's text (as pdf.js extracts it) holds every label, party, number and
 * amount in French, English and French then English; a draft's and a void's marks; 100 lines over
 * several numbered pages; names in Greek, Cyrillic and accented Latin, and characters outside the
 * font drawn as `?`; the same bytes while the invoice does not change (ETag, 304), a draft's
 * following the profile; Accept read as RFC 9110 says on the retrieve and at `/document`; and
 * `qpdf --check` on every document made here, where Debian's qpdf is installed.
 */
import { describe, expect, it } from 'vitest';
import { call, createClient, createProject, expectError, logTimes, token, workspace, type Api, type ApiResponse } from '../support/api.ts';
import { QUEBEC_PROFILE } from '../support/business-profile.ts';
import { oneSpace, pdfPages, QPDF, qpdfCheck } from '../support/pdf.ts';

type Obj = Record<string, any>;

const PROFILE = QUEBEC_PROFILE;
const CLIENT = {
  company_name: 'Clinique Dentaire Maple',
  company_address: '9 avenue du Parc\nQuébec QC',
  tps_number: '987654321 RT0001',
  tvq_number: '9876543210 TQ0001',
  currency: 'CAD',
};

/** Every document the tests were answered, for qpdf. */
const documents: Buffer[] = [];

async function pdfOf(response: ApiResponse): Promise<{ text: string; pages: string[] }> {
  expect(response.status, response.bytes?.toString('utf8').slice(0, 300)).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  expect(response.bytes!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  documents.push(response.bytes!);
  const pages = await pdfPages(response.bytes!);
  return { text: pages.join(' '), pages };
}

const documentOf = (t: string, id: string, headers: Record<string, string> = {}) => call('GET', `/api/v1/invoices/${id}/document`, { token: t, headers });
const expectAll = (text: string, expected: string[]) => {
  const missing = expected.map(oneSpace).filter((part) => !text.includes(part));
  expect(missing, text).toEqual([]);
};
const money = (locale: string, amount: string) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'CAD' }).format(amount as unknown as number);

/** A workspace with the profile, a client of `language` and a November invoice of time and a non-taxable item, finalized on December 1. */
async function billed(language: 'FRENCH' | 'ENGLISH', profile: Obj = PROFILE, finalize = true) {
  const { api, token: t } = await workspace('document');
  expect((await api.patch('/business_profile', profile)).status).toBe(200);
  const client = await createClient(api, { ...CLIENT, language });
  const project = await createProject(api, client.id, { name: 'Site web', hourly_rate: 95.5 });
  await logTimes(api, [{ project_id: project.id, started_at: '2026-11-20T14:00:00Z', duration_minutes: 90 }]);
  const created = await api.post('/invoices', {
    client_id: client.id, from: '2026-11-01', to: '2026-12-01', due_date: '2026-12-31', discount_rate: 10, memo: 'Merci !', purchase_order: 'PO-7781',
    items: [{ description: 'Licence logicielle', quantity: 1.5, unit_price: 87.3333, taxable: false }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (!finalize) return { api, t, client, invoice: created.body as Obj };
  const finalized = await api.post(`/invoices/${created.body.id}/finalize`, { issue_date: '2026-12-01' });
  expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
  return { api, t, client, invoice: finalized.body as Obj };
}

describe("an invoice's document", () => {
  it('in French: every party, date, line, tax, total and payment figure, as fr-CA writes them; the same bytes until a payment', async () => {
    const { api, t, invoice } = await billed('FRENCH');
    const first = await documentOf(t, invoice.id);
    const { text, pages } = await pdfOf(first);
    expect(first.headers.get('content-disposition')).toBe(`inline; filename="${invoice.number}.pdf"`);
    expect(first.headers.get('vary')).toBe('Accept');
    expect(pages).toHaveLength(1);
    const [tps, tvq] = invoice.taxes as Obj[];
    expectAll(text, [
      'Studio Érable inc.', '123 rue Saint-Denis', 'Montréal QC H2X 1K1', 'facturation@erable.test', '+1 514 555 0100', 'https://erable.test',
      'No d’entreprise : 1234567890', 'No de TPS : 123456789 RT0001', 'No de TVQ : 1234567890 TQ0001',
      'Facturé à', 'Clinique Dentaire Maple', '9 avenue du Parc', 'Québec QC', 'No de TPS : 987654321 RT0001', 'No de TVQ : 9876543210 TQ0001',
      'Facture', `Numéro : ${invoice.number}`, 'Date de facturation : 1 décembre 2026', 'Date d’échéance : 31 décembre 2026',
      'Période : 1 novembre 2026 – 30 novembre 2026', 'Bon de commande : PO-7781',
      'Description', 'Quantité', 'Prix unitaire', 'Montant',
      'Site web', '1,50 h', '95,50 $', '143,25 $',
      'Licence logicielle', '1,5', '87,3333 $', '131,00 $', '(non taxable)',
      `Sous-total ${money('fr-CA', invoice.subtotal)}`, `Remise (10 %) -${money('fr-CA', invoice.discount_amount)}`,
      `TPS (5 %) ${money('fr-CA', tps!.amount)}`, `TVQ (9,975 %) ${money('fr-CA', tvq!.amount)}`,
      `Total ${money('fr-CA', invoice.total)}`, `Solde dû ${money('fr-CA', invoice.amount_due)}`,
      'Note', 'Merci !', 'Merci de votre confiance.', 'Page 1 de 1',
    ]);
    expect(text).not.toMatch(/Invoice|BROUILLON|ANNULÉE|Montant payé/);

    // The same bytes while it does not change, whatever changes meanwhile in the profile and the client.
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    await api.patch('/business_profile', { company_name: 'Nouveau nom', tps_number: null });
    await api.patch(`/clients/${invoice.client_id}`, { company_name: 'Autre client', language: 'ENGLISH' });
    const again = await documentOf(t, invoice.id);
    expect(again.bytes!.equals(first.bytes!)).toBe(true);
    expect(again.headers.get('etag')).toBe(etag);
    const notModified = await documentOf(t, invoice.id, { 'If-None-Match': `"other", W/${etag}` });
    expect([notModified.status, notModified.bytes!.length, notModified.headers.get('etag'), notModified.headers.get('content-type')]).toEqual([304, 0, etag, null]);
    // The JSON's ETag never validates the PDF.
    const json = await api.get(`/invoices/${invoice.id}`);
    expect((await documentOf(t, invoice.id, { 'If-None-Match': json.headers.get('etag')! })).status).toBe(200);

    // A payment changes it: its figure, and its ETag.
    expect((await api.post(`/invoices/${invoice.id}/payments`, { amount: '50' })).status).toBe(201);
    const paid = await documentOf(t, invoice.id, { 'If-None-Match': etag });
    const after = await pdfOf(paid);
    expect(paid.headers.get('etag')).not.toBe(etag);
    const read = (await api.get(`/invoices/${invoice.id}`)).body;
    expectAll(after.text, [`Montant payé ${money('fr-CA', '50.00')}`, `Solde dû ${money('fr-CA', read.amount_due)}`, 'Studio Érable inc.']);
  });

  it('in English, and French then English when the profile asks for bilingual invoices (numbers and dates then French)', async () => {
    const english = await billed('ENGLISH');
    const { text } = await pdfOf(await documentOf(english.t, english.invoice.id));
    expectAll(text, [
      'Invoice', `Number: ${english.invoice.number}`, 'Issue date: December 1, 2026', 'Due date: December 31, 2026', 'Period: November 1, 2026 – November 30, 2026',
      'Purchase order: PO-7781', 'Bill to', 'GST no.: 987654321 RT0001', 'QST no.: 9876543210 TQ0001', 'Business no.: 1234567890',
      'Quantity', 'Unit price', 'Amount', '1.50 h', '$95.50', '$143.25', '$87.3333', '(non-taxable)',
      `Subtotal ${money('en-CA', english.invoice.subtotal)}`, 'Discount (10%)', 'TPS (5%)', 'TVQ (9.975%)', `Total ${money('en-CA', english.invoice.total)}`,
      'Amount due', 'Memo', 'Page 1 of 1',
    ]);
    expect(text).not.toMatch(/Facture|Page 1 de/);

    const bilingual = await billed('ENGLISH', { ...PROFILE, bilingual_invoices: true }, false);
    const draft = await pdfOf(await documentOf(bilingual.t, bilingual.invoice.id));
    expectAll(draft.text, [
      'BROUILLON / DRAFT', 'Facture / Invoice', 'Numéro / Number : BROUILLON / DRAFT', 'Facturé à / Bill to', 'No de TPS / GST no. : 987654321 RT0001',
      'Description', 'Quantité', 'Quantity', 'Prix unitaire', 'Unit price', '1,50 h', '143,25 $',
      '(non taxable / non-taxable)', 'Sous-total / Subtotal', 'Remise / Discount (10 %)', 'Solde dû / Amount due', 'Note / Memo', 'Page 1 de 1 / Page 1 of 1',
    ]);
  });

  it("a draft's is named by its id, marked, and follows the current profile and client; a void one is marked", async () => {
    const { api, t, client, invoice } = await billed('FRENCH', PROFILE, false);
    const first = await documentOf(t, invoice.id);
    expect(first.headers.get('content-disposition')).toBe(`inline; filename="${invoice.id}.pdf"`);
    expectAll((await pdfOf(first)).text, ['BROUILLON', 'Numéro : BROUILLON', 'Studio Érable inc.', 'Clinique Dentaire Maple']);

    await api.patch('/business_profile', { company_name: 'Érable & fils' });
    await api.patch(`/clients/${client.id}`, { company_name: 'Maple Dental', language: 'ENGLISH' });
    const changed = await documentOf(t, invoice.id, { 'If-None-Match': first.headers.get('etag')! });
    expect(changed.headers.get('etag')).not.toBe(first.headers.get('etag'));
    const text = (await pdfOf(changed)).text;
    expectAll(text, ['DRAFT', 'Érable & fils', 'Maple Dental', 'Invoice']);
    expect(text).not.toContain('Studio Érable');

    expect((await api.post(`/invoices/${invoice.id}/finalize`, {})).status).toBe(200);
    expect((await api.post(`/invoices/${invoice.id}/void`, {})).status).toBe(200);
    const voided = (await pdfOf(await documentOf(t, invoice.id))).text;
    expectAll(voided, ['VOID', 'Maple Dental']);
    expect(voided).not.toContain('DRAFT');
  });

  it('100 lines flow onto numbered pages, each line there once', async () => {
    const { api, token: t } = await workspace('document-pages');
    const client = await createClient(api, { company_name: 'Many Lines Ltd', currency: 'CAD' });
    const project = await createProject(api, client.id, { name: 'Support', hourly_rate: 80 });
    // 50 rates make 50 time lines; 50 items the rest.
    await logTimes(api, Array.from({ length: 50 }, (_, i) => ({ project_id: project.id, started_at: '2026-11-10T10:00:00Z', duration_minutes: 60, billable_rate: 100 + i })));
    const items = Array.from({ length: 50 }, (_, i) => ({ description: `Item number ${i + 1}`, quantity: 1, unit_price: i + 1 }));
    const created = await api.post('/invoices', { client_id: client.id, from: '2026-11-01', to: '2026-12-01', items });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.lines).toHaveLength(100);
    const { text, pages } = await pdfOf(await call('GET', `/api/v1/invoices/${created.body.id}/document`, { token: t }));
    expect(pages.length).toBeGreaterThanOrEqual(3);
    pages.forEach((page, k) => expect(page).toContain(`Page ${k + 1} of ${pages.length}`));
    for (let i = 1; i <= 50; i++) {
      expect(text.split(`Item number ${i} `).length - 1, `Item number ${i}`).toBe(1);
      expect(text).toContain(`$${100 + i - 1}.00`);
    }
    expect(text).toContain(`Total ${money('en-CA', created.body.total)}`);
  });

  it('draws Greek, Cyrillic and accented Latin; a character outside the font is one ? per code point, never a failure', async () => {
    const { api, token: t } = await workspace('document-scripts');
    const names = ['Ψηφιακή Αθήνα ΑΕ', 'ООО «Щит и Ёж»', 'Łódź Ćwierć Ŀŀ Ǆ ǅ', 'Å‰ – “quotes” … € £ ¥'];
    for (const name of names) {
      const client = await createClient(api, { company_name: name, currency: 'CAD' });
      const invoice = (await api.post('/invoices', { client_id: client.id, items: [{ description: `Pour ${name}`, quantity: 1, unit_price: 1 }] })).body;
      expectAll((await pdfOf(await call('GET', `/api/v1/invoices/${invoice.id}/document`, { token: t }))).text, [name, `Pour ${name}`]);
    }
    const outside = await createClient(api, { company_name: '株式会社 Acme क्ष e\u0301', currency: 'CAD' });
    const invoice = (await api.post('/invoices', { client_id: outside.id, items: [{ description: 'Audit', quantity: 1, unit_price: 1 }] })).body;
    // NFC first: e + U+0301 is é, which the font draws.
    expectAll((await pdfOf(await call('GET', `/api/v1/invoices/${invoice.id}/document`, { token: t }))).text, ['???? Acme ??? é']);
  });

  it('reads Accept as RFC 9110 says: the retrieve answers JSON unless PDF is preferred, the document PDF unless it is excluded', async () => {
    const { t, invoice } = await billed('ENGLISH', PROFILE, false);
    const retrieve = (accept?: string) => call('GET', `/api/v1/invoices/${invoice.id}`, { token: t, headers: accept === undefined ? {} : { Accept: accept } });
    const typeOf = (response: ApiResponse) => [response.status, response.headers.get('content-type')?.split(';')[0]];
    const JSON_ANSWER = [200, 'application/json'];
    const PDF_ANSWER = [200, 'application/pdf'];
    const cases: [string | undefined, unknown[]][] = [
      [undefined, JSON_ANSWER],
      ['*/*', JSON_ANSWER],
      ['application/*', JSON_ANSWER],
      ['application/json', JSON_ANSWER],
      ['application/pdf, application/json', JSON_ANSWER], // a tie: JSON
      ['application/pdf', PDF_ANSWER],
      ['application/json;q=0.5, application/pdf', PDF_ANSWER],
      ['application/*;q=0.2, application/pdf;q=0.3', PDF_ANSWER],
      ['application/pdf;q=0, */*', JSON_ANSWER],
      ['text/html, image/*', [406, 'application/json']],
    ];
    for (const [accept, expected] of cases) {
      const response = await retrieve(accept);
      expect(typeOf(response), String(accept)).toEqual(expected);
      if (response.status === 200) expect(response.headers.get('vary'), String(accept)).toBe('Accept');
      if (response.status === 406) expectError(response, 406, 'not_acceptable');
    }
    // The retrieve's PDF is the document's, with its headers.
    const handed = await retrieve('application/pdf');
    const direct = await documentOf(t, invoice.id, { Accept: 'application/json;q=0.1, application/pdf' });
    await pdfOf(handed);
    expect([handed.bytes!.equals(direct.bytes!), handed.headers.get('etag'), handed.headers.get('content-disposition')]).toEqual([true, direct.headers.get('etag'), direct.headers.get('content-disposition')]);
    expect((await retrieve('application/pdf')).headers.get('etag')).toBe(direct.headers.get('etag'));
    expect((await call('GET', `/api/v1/invoices/${invoice.id}`, { token: t, headers: { Accept: 'application/pdf', 'If-None-Match': direct.headers.get('etag')! } })).status).toBe(304);

    for (const accept of [undefined, '*/*', 'application/*', 'application/json;q=0.9, application/pdf;q=0.1']) {
      expect(typeOf(await documentOf(t, invoice.id, accept === undefined ? {} : { Accept: accept })), String(accept)).toEqual(PDF_ANSWER);
    }
    for (const accept of ['application/json', 'application/pdf;q=0, */*']) expectError(await documentOf(t, invoice.id, { Accept: accept }), 406, 'not_acceptable');
  });

  it("is the invoice's: another workspace's is a 404, and it takes invoices:read", async () => {
    const { t, invoice } = await billed('ENGLISH', PROFILE, false);
    const other = await workspace('document-other');
    expectError(await documentOf(other.token, invoice.id), 404, 'not_found');
    expectError(await call('GET', `/api/v1/invoices/${invoice.id}`, { token: other.token, headers: { Accept: 'application/pdf' } }), 404, 'not_found');
    expectError(await documentOf(t, 'inv_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
    const withoutRead = await token(invoice.workspace_id, ['clients:read']);
    expectError(await call('GET', `/api/v1/invoices/${invoice.id}/document`, { token: withoutRead }), 403, 'insufficient_scope');
  });
});

describe.skipIf(!QPDF)('qpdf --check (needs Debian\'s qpdf: skipped where it is not installed)', () => {
  it('passes every document made above: no error, no warning', () => {
    expect(documents.length).toBeGreaterThan(10);
    for (const bytes of documents) {
      const { status, output } = qpdfCheck(bytes);
      // qpdf exits 3 when it has warnings, 2 on errors.
      expect([status, /WARNING/.test(output)], output).toEqual([0, false]);
    }
  });
});
