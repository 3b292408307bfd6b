/**
 * The least a function can do to answer a PDF drawn with the documents' font: pdf-lib and
 * @pdf-lib/fontkit, the font read and parsed once (as the document's function does at load), and
 * per request a document with the font's subset embedded, one line drawn, saved. The PDF floor of
 * sections 1, 2 (bundled into the floor handler, lib/floor.ts) and 12 (in process).
 */
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';

/** What the floor draws: one line of text. */
export const FLOOR_LINE = 'Design review with the client: 1.50 h at $120.00';

export function pdfFloor(fontBytes: Uint8Array): (text?: string) => Promise<Uint8Array> {
  const parsed = fontkit.create(fontBytes);
  const parsedFontkit = { create: () => parsed } as unknown as typeof fontkit;
  return async (text = FLOOR_LINE) => {
    const pdf = await PDFDocument.create({ updateMetadata: false });
    pdf.registerFontkit(parsedFontkit);
    const font = await pdf.embedFont(fontBytes, { subset: true });
    pdf.addPage([612, 792]).drawText(text, { x: 48, y: 720, size: 9, font });
    return pdf.save();
  };
}
