import { defineHandler } from '../../shared/http/handler.ts';
import { documentReply } from '../../shared/http/document.ts';
import { invoiceDocumentOf } from '../../shared/domain/invoices/parties.ts';
import { documentFileName, pdfRenderer } from '../../shared/document/invoice-pdf.ts';
import { readFont } from '../../shared/document/font.ts';
import { invoice } from '../../shared/model/resources.ts';
import { PDF_TYPE } from '../../shared/api/operations.ts';

// The font is read and parsed as the function loads (Lambda's init phase), not by its first request.
const render = pdfRenderer(readFont());

export const handler = defineHandler('retrieveInvoiceDocument', invoice, async (req) => {
  const document = await invoiceDocumentOf(req.caller, req.id());
  return documentReply(await render(document), PDF_TYPE, documentFileName(document.invoice));
});
