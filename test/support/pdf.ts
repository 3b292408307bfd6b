/**
 * What the tests read of a PDF: its text, page by page (pdf.js through `unpdf`, as a reader's search
 * and copy find it), and `qpdf --check` (Debian's `qpdf`), where it is installed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';

/** Each page's text, its runs of white space (no-break spaces included) as one space. */
export async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: false });
  await pdf.cleanup();
  return text.map(oneSpace);
}

/** White space as the extracted text has it: one plain space for any run. */
export const oneSpace = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ').trim();

/** Whether `qpdf` can be run here (CI installs nothing: the check is skipped there, with a note). */
export const QPDF = spawnSync('qpdf', ['--version']).status === 0;

/** `qpdf --check`'s exit status and output for `bytes` (0: no error, no warning). */
export function qpdfCheck(bytes: Uint8Array): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'qpdf-'));
  try {
    const file = join(dir, 'document.pdf');
    writeFileSync(file, bytes);
    const run = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
