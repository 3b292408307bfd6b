/**
 * An invoice's document as a PDF (contract, "Business profile and the invoice document";
 * docs/decisions/0034-invoice-document.md): every party, line, tax, total and payment figure, in
 * French, English, or French then English, on US Letter pages numbered `Page k de N`.
 *
 * The same invoice gives the same bytes: nothing here reads the clock (pdf-lib writes no dates or
 * producer with `updateMetadata: false`, and names the font's subset from a fixed seed), and the
 * library and font are pinned by package-lock.json.
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { InvoiceLine, Issuer, Recipient } from '../model/invoice-fields.ts';
import type { Invoice } from '../model/objects.ts';
import { formatsOf, type Formats } from './format.ts';
import { say, type Label, type Languages } from './labels.ts';

/** An invoice and the parties its document shows (shared/domain/invoices/document.ts). */
export interface InvoiceDocument {
  invoice: Invoice;
  issuer: Issuer;
  recipient: Recipient;
}

/** French for a French client; English, or French then English when the issuer asks for bilingual invoices. */
export function languagesOf(issuer: Pick<Issuer, 'bilingual_invoices'>, recipient: Pick<Recipient, 'language'>): Languages {
  if (recipient.language === 'FRENCH') return ['fr'];
  return issuer.bilingual_invoices ? ['fr', 'en'] : ['en'];
}

/** The name a PDF is saved under: its number, or its id while a draft. */
export const documentFileName = (invoice: Pick<Invoice, 'number' | 'id'>) => `${invoice.number ?? invoice.id}.pdf`;

// US Letter, in points.
const PAGE = { width: 612, height: 792 } as const;
const MARGIN = 48;
const RIGHT = PAGE.width - MARGIN;
const BOTTOM = MARGIN + 24;
const SIZE = { body: 9, small: 8, name: 14, title: 18, mark: 16 } as const;
const LEADING = 1.35;
// The table's columns: the description's left edge and width, and the right edges of the numbers.
const COLUMNS = { description: MARGIN, descriptionWidth: 270, quantity: 400, rate: 484, amount: RIGHT } as const;
/** The issuer's column at the top of the first page, left of the invoice's facts. */
const ISSUER_WIDTH = 280;
/** The room of a number column, right-aligned at its edge: from the column before it, less a gap. */
const COLUMN_WIDTH = COLUMNS.amount - COLUMNS.rate - 6;
const GREY = rgb(0.4, 0.4, 0.4);
const RED = rgb(0.75, 0.1, 0.1);

/**
 * OpenType's substitutions and positionings, off: each character is its own glyph (no ligature,
 * so search and copy find `fi` in `fichier`), and text is not shaped, which pdf-lib would not
 * draw anyway (it places glyphs by their advance widths alone): most of a render's time otherwise.
 */
const ONE_GLYPH_PER_CHARACTER = Object.fromEntries(
  ['ccmp', 'locl', 'rlig', 'mark', 'mkmk', 'calt', 'clig', 'liga', 'dlig', 'rclt', 'curs', 'kern'].map((feature) => [feature, false]),
);

/** The font, parsed once per execution environment; each document embeds the subset it draws. */
export function pdfRenderer(fontBytes: Uint8Array) {
  const parsed = fontkit.create(fontBytes);
  const drawableCodePoints = new Set(parsed.characterSet);
  // Widths as the PDF draws them (each glyph's advance: pdf-lib applies no kerning), per character once.
  const advances = new Map<number, number>();
  const advanceOf = (codePoint: number) => {
    let advance = advances.get(codePoint);
    if (advance === undefined) advances.set(codePoint, (advance = parsed.glyphForCodePoint(codePoint).advanceWidth / parsed.unitsPerEm));
    return advance;
  };
  const metrics: Metrics = {
    drawable: (text) => drawable(text, drawableCodePoints),
    width: (shown, size) => {
      let em = 0;
      for (const char of shown) em += advanceOf(char.codePointAt(0)!);
      return em * size;
    },
  };
  // pdf-lib asks its fontkit to parse the bytes at every embed: give it the parsed font instead.
  const parsedFontkit = { create: () => parsed } as unknown as typeof fontkit;
  return async (document: InvoiceDocument): Promise<Uint8Array> => {
    const pdf = await PDFDocument.create({ updateMetadata: false });
    pdf.registerFontkit(parsedFontkit);
    const font = await pdf.embedFont(fontBytes, { subset: true, features: ONE_GLYPH_PER_CHARACTER });
    new InvoiceLayout(pdf, font, metrics, document).draw();
    return pdf.save();
  };
}

/** Text the font can draw: NFC, tabs as spaces, and one `?` per code point it has no glyph for. */
export function drawable(text: string, codePoints: ReadonlySet<number>): string {
  let out = '';
  for (const char of text.normalize('NFC').replace(/\t/g, ' ')) out += codePoints.has(char.codePointAt(0)!) ? char : '?';
  return out;
}

type Align = 'left' | 'right' | 'center';

/** What the layout knows of the font: the text it can draw, and how wide drawn text is. */
interface Metrics {
  drawable(text: string): string;
  /** The width of drawable text at `size` points. */
  width(shown: string, size: number): number;
}

class InvoiceLayout {
  private readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;
  private readonly languages: Languages;
  private readonly formats: Formats;
  private readonly colon: string;

  constructor(
    private readonly pdf: PDFDocument,
    private readonly font: PDFFont,
    private readonly metrics: Metrics,
    private readonly doc: InvoiceDocument,
  ) {
    this.languages = languagesOf(doc.issuer, doc.recipient);
    this.formats = formatsOf(this.languages[0] === 'fr' ? 'fr-CA' : 'en-CA', doc.invoice.currency);
    this.colon = this.languages[0] === 'fr' ? '\u00a0: ' : ': ';
  }

  draw(): void {
    this.newPage();
    this.header();
    this.parties();
    this.lines();
    this.totals();
    this.notes();
    this.numberPages();
  }

  private say(label: Label, values?: Record<string, string>) {
    return say(this.languages, label, values);
  }

  private newPage(): void {
    this.page = this.pdf.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = PAGE.height - MARGIN;
    const { status } = this.doc.invoice;
    if (status === 'draft' || status === 'void') {
      this.text(this.say(status), PAGE.width / 2, PAGE.height - MARGIN + 14, { size: SIZE.mark, align: 'center', color: RED });
    }
    if (this.pages.length > 1) {
      const { invoice, issuer } = this.doc;
      this.text([this.say('invoice'), invoice.number, issuer.company_name].filter(Boolean).join(' · '), MARGIN, this.y, { size: SIZE.small, color: GREY });
      this.y -= SIZE.small * LEADING * 2;
      this.tableHeader();
    }
  }

  /** Room for `height` points on this page, or a new page. */
  private room(height: number): void {
    if (this.y - height < BOTTOM) this.newPage();
  }

  /** One line of text at (x, y); with `maxWidth`, drawn smaller when it is wider (a very large amount in its column). */
  private text(text: string, x: number, y: number, options: { size?: number; align?: Align; color?: ReturnType<typeof rgb>; maxWidth?: number } = {}): void {
    const shown = this.metrics.drawable(text);
    const given = options.size ?? SIZE.body;
    const natural = this.metrics.width(shown, given);
    const size = options.maxWidth !== undefined && natural > options.maxWidth ? (given * options.maxWidth) / natural : given;
    const width = this.metrics.width(shown, size);
    const left = options.align === 'right' ? x - width : options.align === 'center' ? x - width / 2 : x;
    this.page.drawText(shown, { x: left, y, size, font: this.font, color: options.color ?? rgb(0, 0, 0) });
  }

  /** `text` broken into lines of at most `width` points: at its line breaks, between words, and inside a word longer than a line. */
  private wrap(text: string, width: number, size: number = SIZE.body): string[] {
    const out: string[] = [];
    const fits = (candidate: string) => this.metrics.width(this.metrics.drawable(candidate), size) <= width;
    for (const paragraph of text.split(/\r\n|\r|\n/)) {
      let line = '';
      for (const word of paragraph.split(' ')) {
        const candidate = line === '' ? word : `${line} ${word}`;
        if (fits(candidate)) {
          line = candidate;
          continue;
        }
        if (line !== '') out.push(line);
        line = '';
        for (const char of word) {
          if (line !== '' && !fits(line + char)) {
            out.push(line);
            line = '';
          }
          line += char;
        }
      }
      out.push(line);
    }
    return out;
  }

  /** Lines of text from `x`, each on its own line, wrapped to `width`; the cursor moves below them. */
  private block(lines: (string | null | undefined)[], x: number, width: number, size: number = SIZE.body): void {
    for (const given of lines) {
      if (!given) continue;
      for (const line of this.wrap(given, width, size)) {
        this.room(size * LEADING);
        this.y -= size * LEADING;
        this.text(line, x, this.y, { size });
      }
    }
  }

  /** `label: value` (in French with a no-break space before the colon); nothing without a value. */
  private labelled(label: Label, value: string | null | undefined): string | undefined {
    return value ? `${this.say(label)}${this.colon}${value}` : undefined;
  }

  /** A party's business, TPS and TVQ numbers, labelled. */
  private numbers(party: Pick<Issuer, 'business_number' | 'tps_number' | 'tvq_number'>) {
    return [this.labelled('businessNumber', party.business_number), this.labelled('tpsNumber', party.tps_number), this.labelled('tvqNumber', party.tvq_number)];
  }

  private header(): void {
    const { invoice, issuer } = this.doc;
    const top = this.y;
    // A long name wraps in its column, clear of the title and the invoice's facts on the right.
    this.block([issuer.company_name], MARGIN, ISSUER_WIDTH, SIZE.name);
    this.block(
      [
        issuer.company_address,
        issuer.company_email,
        issuer.phone,
        issuer.website,
        ...this.numbers(issuer),
      ],
      MARGIN,
      ISSUER_WIDTH,
    );
    const issuerBottom = this.y;
    this.y = top - SIZE.title;
    this.text(this.say('invoice'), RIGHT, this.y, { size: SIZE.title, align: 'right' });
    const f = this.formats;
    const facts: [Label, string | null][] = [
      ['number', invoice.number ?? this.say('draft')],
      ['issueDate', invoice.issue_date && f.date(invoice.issue_date)],
      ['dueDate', invoice.due_date && f.date(invoice.due_date)],
      ['period', invoice.period_start && invoice.period_end && `${f.date(invoice.period_start)} – ${f.dayBefore(invoice.period_end)}`],
      ['purchaseOrder', invoice.purchase_order],
    ];
    this.y -= 4;
    for (const [label, value] of facts) {
      if (!value) continue;
      for (const line of this.wrap(this.labelled(label, value)!, 230)) {
        this.y -= SIZE.body * LEADING;
        this.text(line, RIGHT, this.y, { align: 'right' });
      }
    }
    this.y = Math.min(this.y, issuerBottom) - SIZE.body * 2;
  }

  private parties(): void {
    const { recipient } = this.doc;
    this.y -= SIZE.body;
    this.text(this.say('billTo'), MARGIN, this.y, { color: GREY });
    this.block(
      [
        recipient.company_name,
        recipient.company_address,
        recipient.company_email,
        ...this.numbers(recipient),
      ],
      MARGIN,
      300,
    );
    this.y -= SIZE.body * 2;
    this.tableHeader();
  }

  /** The columns' names: a row per language, so that French and English each fit their column. */
  private tableHeader(): void {
    const options = { color: GREY } as const;
    for (const language of this.languages) {
      const name = (label: Label) => say([language], label);
      this.y -= SIZE.body * LEADING;
      this.text(name('description'), COLUMNS.description, this.y, options);
      this.text(name('quantity'), COLUMNS.quantity, this.y, { ...options, align: 'right' });
      this.text(name('rate'), COLUMNS.rate, this.y, { ...options, align: 'right' });
      this.text(name('amount'), COLUMNS.amount, this.y, { ...options, align: 'right' });
    }
    this.y -= 4;
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: RIGHT, y: this.y }, thickness: 0.5, color: GREY });
    this.y -= 2;
  }

  /** What a line shows in each column: its description and details, quantity, rate or unit price, amount. */
  private cellsOf(line: InvoiceLine, markNotTaxable: boolean): { text: string[]; quantity: string; rate: string } {
    const f = this.formats;
    const notTaxable = markNotTaxable && !line.taxable ? [`(${this.say('notTaxable')})`] : [];
    switch (line.kind) {
      case 'time':
        return {
          text: [line.description, ...notTaxable],
          quantity: `${f.hours(line.minutes)} ${this.say('hours')}`,
          rate: line.billable_rate === null ? '' : f.price(line.billable_rate),
        };
      case 'fixed_price':
        return { text: [line.description, this.say('fixedPrice'), ...notTaxable], quantity: '', rate: '' };
      case 'retainer':
        return { text: [line.description, this.labelled('period', `${f.date(line.period_start)} – ${f.dayBefore(line.period_end)}`)!, ...notTaxable], quantity: '', rate: '' };
      case 'credit':
        return {
          text: [line.description, `${this.labelled('creditUsed', f.money(line.credit_used))} · ${this.labelled('creditBalance', f.money(line.credit_balance))}`, ...notTaxable],
          quantity: `${f.quantity(line.blocks)} ${this.say('blocks')}`,
          rate: f.price(Number(line.block_amount)),
        };
      case 'item':
        return { text: [line.description, ...notTaxable], quantity: f.quantity(line.quantity), rate: f.price(line.unit_price) };
    }
  }

  private lines(): void {
    const { lines } = this.doc.invoice;
    const markNotTaxable = lines.some((line) => line.taxable) && lines.some((line) => !line.taxable);
    for (const line of lines) {
      const cells = this.cellsOf(line, markNotTaxable);
      const [description = '', ...details] = cells.text;
      const [first = '', ...firstRest] = this.wrap(description, COLUMNS.descriptionWidth);
      const rest = [...firstRest, ...details.flatMap((detail) => this.wrap(detail, COLUMNS.descriptionWidth - 8, SIZE.small))];
      const height = (1 + rest.length) * SIZE.body * LEADING + 4;
      // A row stays on one page unless it is taller than a page.
      if (height < PAGE.height - 2 * MARGIN - 100) this.room(height);
      this.y -= SIZE.body * LEADING;
      this.text(first, COLUMNS.description, this.y);
      this.text(cells.quantity, COLUMNS.quantity, this.y, { align: 'right', maxWidth: COLUMN_WIDTH });
      this.text(cells.rate, COLUMNS.rate, this.y, { align: 'right', maxWidth: COLUMN_WIDTH });
      this.text(this.formats.money(line.amount), COLUMNS.amount, this.y, { align: 'right', maxWidth: COLUMN_WIDTH });
      for (const more of rest) {
        this.room(SIZE.body * LEADING);
        this.y -= SIZE.body * LEADING;
        this.text(more, COLUMNS.description + 8, this.y, { size: SIZE.small, color: GREY });
      }
      this.y -= 4;
    }
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: RIGHT, y: this.y }, thickness: 0.5, color: GREY });
  }

  private totals(): void {
    const { invoice } = this.doc;
    const f = this.formats;
    const rows: [string, string][] = [[this.say('subtotal'), f.money(invoice.subtotal)]];
    if (invoice.discount_rate > 0) rows.push([`${this.say('discount')} (${f.percent(invoice.discount_rate)})`, f.money(`-${invoice.discount_amount}`)]);
    for (const tax of invoice.taxes) rows.push([`${tax.name} (${f.percent(tax.rate)})`, f.money(tax.amount)]);
    rows.push([this.say('total'), f.money(invoice.total)]);
    // Nothing paid yet may be left out (contract).
    if (!/^0(\.0+)?$/.test(invoice.amount_paid)) rows.push([this.say('amountPaid'), f.money(invoice.amount_paid)]);
    rows.push([this.say('amountDue'), f.money(invoice.amount_due)]);
    this.y -= 6;
    for (const [label, value] of rows) {
      this.room(SIZE.body * LEADING);
      this.y -= SIZE.body * LEADING;
      this.text(label, COLUMNS.rate, this.y, { align: 'right' });
      this.text(value, COLUMNS.amount, this.y, { align: 'right', maxWidth: COLUMN_WIDTH });
    }
  }

  private notes(): void {
    const { invoice, issuer } = this.doc;
    const width = RIGHT - MARGIN;
    if (invoice.memo) {
      this.y -= SIZE.body * 2;
      this.room(SIZE.body * LEADING * 2);
      this.y -= SIZE.body * LEADING;
      this.text(this.say('memo'), MARGIN, this.y, { color: GREY });
      this.block([invoice.memo], MARGIN, width);
    }
    if (issuer.invoice_footer) {
      this.y -= SIZE.body * 2;
      this.block([issuer.invoice_footer], MARGIN, width, SIZE.small);
    }
  }

  private numberPages(): void {
    const n = String(this.pages.length);
    this.pages.forEach((page, index) => {
      this.page = page;
      this.text(this.say('page', { k: String(index + 1), n }), PAGE.width / 2, MARGIN - 8, { size: SIZE.small, align: 'center', color: GREY });
    });
  }
}
