/**
 * Section 12: an invoice's document (decision 0034). In a workspace of its own, with a business
 * profile and clients whose invoices are bilingual (French then English: the most text a document
 * draws), two finalized invoices: one of a single time line, one of 100 lines (50 time entries at
 * 50 rates, and 50 items). The document's handler runs in this process, warm, its DynamoDB read
 * answered from a recording (section 3's replay): what is timed is the render and the handler
 * around it. Beside them, the PDF floor (lib/pdf-floor.ts: one line, the font's subset embedded,
 * saved). The three are measured in alternating blocks; CPU and wall milliseconds per call, p50
 * and p99; the document's bytes and pages. A few real invocations (DynamoDB Local's read included)
 * give the warm latency.
 */
import { PDFDocument } from 'pdf-lib';
import { routeByOperation } from '../../shared/api/routes.ts';
import { readFont } from '../../shared/document/font.ts';
import { FLOOR_LINE, pdfFloor } from './lib/pdf-floor.ts';
import { handlerOf, invokeOk, lambdaContext, proxyEvent, type Caller } from './lib/invoke.ts';
import { record, rewindReplay, startReplay, stopReplay, type RecordedResponse } from './lib/sdk-hooks.ts';
import { median, quantile } from './lib/stats.ts';
import { clientBody, invoiceBody, projectBody } from './scenarios.ts';
import { QUEBEC_PROFILE } from '../support/business-profile.ts';

export interface DocumentSettings {
  warmup: number;
  /** Measured calls of each, in `blocks` alternating blocks. */
  samples: number;
  blocks: number;
  /** Real invocations (DynamoDB Local's read included). */
  real: number;
}

export const DOCUMENT_SETTINGS: DocumentSettings = { warmup: 10, samples: 100, blocks: 5, real: 10 };
export const QUICK_DOCUMENT_SETTINGS: DocumentSettings = { warmup: 3, samples: 30, blocks: 3, real: 3 };

/** The lines of the long invoice: half time lines (one per rate), half items. */
export const LONG_INVOICE_LINES = 100;

export interface DocumentRender {
  label: string;
  /** The invoice's lines; undefined for the floor. */
  lines: number | undefined;
  bytes: number;
  pages: number;
  /** CPU milliseconds per call (user + system). */
  cpuP50: number;
  cpuP99: number;
  /** Wall milliseconds per call (DynamoDB answered from the recording: no network). */
  wallP50: number;
  wallP99: number;
  n: number;
  /** Median wall time of a real warm invocation, DynamoDB Local's read included (not for the floor). */
  realMs: number | undefined;
}

export interface DocumentBenchResult {
  renders: DocumentRender[];
  settings: DocumentSettings;
}

/** Bilingual: each label in both languages, the longest document of the three. */
const PROFILE = { ...QUEBEC_PROFILE, invoice_footer: 'Merci de votre confiance. Thank you for your business.', bilingual_invoices: true };

/** A finalized invoice of a fresh client with `entries` time entries at as many rates, and `items` items; its id and lines. */
async function finalizedInvoice(repoRoot: string, caller: Caller, n: number, entries: number, items: number): Promise<{ id: string; lines: number }> {
  const client = (await invokeOk(repoRoot, caller, { operation: 'createClient', body: clientBody(n, { language: 'ENGLISH', tps_number: '987654321 RT0001', tvq_number: '9876543210 TQ0001' }) })).body.id as string;
  const project = (await invokeOk(repoRoot, caller, { operation: 'createProject', body: projectBody(n, client) })).body.id as string;
  for (let i = 0; i < entries; i++) {
    await invokeOk(repoRoot, caller, {
      operation: 'logTimeEntry',
      body: { project_id: project, started_at: '2026-11-20T09:00:00Z', duration_minutes: 30 + (i % 60), billable_rate: 100 + i, description: `Design review ${i + 1}` },
    });
  }
  const body = invoiceBody(client, items === 0 ? {} : { items: Array.from({ length: items }, (_, i) => ({ description: `Item number ${i + 1}`, quantity: 1, unit_price: i + 1 })) });
  const created = await invokeOk(repoRoot, caller, { operation: 'createInvoice', body });
  const id = created.body.id as string;
  await invokeOk(repoRoot, caller, { operation: 'finalizeInvoice', id });
  return { id, lines: (created.body.lines as unknown[]).length };
}

interface Subject {
  label: string;
  lines: number | undefined;
  /** One call; it returns the document. */
  call: () => Promise<Uint8Array>;
  responses: RecordedResponse[];
  samples: { cpu: number; wall: number }[];
  bytes: number;
}

async function timed(subject: Subject, into?: Subject['samples']): Promise<void> {
  if (subject.responses.length > 0) startReplay(subject.responses);
  try {
    rewindReplay();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await subject.call();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    into?.push({ cpu: (c.user + c.system) / 1000, wall });
  } finally {
    stopReplay();
  }
}

export async function runDocumentBench(repoRoot: string, caller: Caller, settings: DocumentSettings, log: (line: string) => void): Promise<DocumentBenchResult> {
  await invokeOk(repoRoot, caller, { operation: 'updateBusinessProfile', body: PROFILE });
  const short = await finalizedInvoice(repoRoot, caller, 1, 1, 0);
  const long = await finalizedInvoice(repoRoot, caller, 2, LONG_INVOICE_LINES / 2, LONG_INVOICE_LINES / 2);
  if (short.lines !== 1 || long.lines !== LONG_INVOICE_LINES) throw new Error(`documents: invoices of ${short.lines} and ${long.lines} lines, not 1 and ${LONG_INVOICE_LINES}`);
  log(`documents: invoices of 1 and ${LONG_INVOICE_LINES} lines finalized; ${settings.samples} warm renders of each and of the PDF floor`);

  const route = routeByOperation('retrieveInvoiceDocument');
  const handler = await handlerOf(repoRoot, route);
  const documentOf = (id: string) => async () => {
    const result = await handler(proxyEvent(caller, { operation: 'retrieveInvoiceDocument', id }), lambdaContext(route.operation));
    if (result.statusCode !== 200 || !result.isBase64Encoded) throw new Error(`documents: ${id} answered ${result.statusCode}`);
    return Buffer.from(result.body, 'base64');
  };
  const floor = pdfFloor(readFont());
  const subjects: Subject[] = [
    { label: 'floor: one line of text', lines: undefined, call: () => floor(FLOOR_LINE), responses: [], samples: [], bytes: 0 },
    { label: '1 line', lines: short.lines, call: documentOf(short.id), responses: [], samples: [], bytes: 0 },
    { label: `${LONG_INVOICE_LINES} lines`, lines: long.lines, call: documentOf(long.id), responses: [], samples: [], bytes: 0 },
  ];
  const pages: number[] = [];
  for (const s of subjects) {
    // One real call records the handler's DynamoDB responses (the floor makes none) and gives the document.
    const { result, responses } = await record(s.call);
    s.responses = responses;
    s.bytes = result.byteLength;
    pages.push((await PDFDocument.load(result)).getPageCount());
  }
  for (const s of subjects) for (let i = 0; i < settings.warmup; i++) await timed(s);
  const perBlock = Math.ceil(settings.samples / settings.blocks);
  for (let block = 0; block < settings.blocks; block++) {
    for (const s of subjects) for (let i = 0; i < perBlock; i++) await timed(s, s.samples);
  }
  const renders: DocumentRender[] = [];
  for (const [i, s] of subjects.entries()) {
    let realMs: number | undefined;
    if (s.lines !== undefined) {
      const real: number[] = [];
      for (let k = 0; k < settings.real; k++) {
        const t0 = performance.now();
        await s.call();
        real.push(performance.now() - t0);
      }
      realMs = median(real);
    }
    const cpu = s.samples.map((x) => x.cpu);
    const wall = s.samples.map((x) => x.wall);
    renders.push({
      label: s.label,
      lines: s.lines,
      bytes: s.bytes,
      pages: pages[i]!,
      cpuP50: quantile(cpu, 0.5),
      cpuP99: quantile(cpu, 0.99),
      wallP50: quantile(wall, 0.5),
      wallP99: quantile(wall, 0.99),
      n: s.samples.length,
      realMs,
    });
  }
  return { renders, settings };
}
