import { current, defineHandler } from '../../shared/http/handler.ts';
import { handOverTo } from '../../shared/http/hand-over.ts';
import { retrieve } from '../../shared/domain/entity.ts';
import { invoice } from '../../shared/model/resources.ts';
import { PDF_TYPE } from '../../shared/api/operations.ts';

// An Accept that prefers the PDF is answered by the document's function (decision 0034).
export const handler = defineHandler('retrieveInvoice', invoice, async (req) => current(await retrieve(req.caller, invoice, req.id())), handOverTo('retrieveInvoiceDocument', PDF_TYPE));
