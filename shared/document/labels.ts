/**
 * The words of an invoice's document in French and English (contract, "Business profile and the
 * invoice document"): a label is French, English, or French then English ("Facture / Invoice").
 */
export type Language = 'fr' | 'en';
/** The languages of a document, in the order each label shows them: one, or French then English. */
export type Languages = readonly ['fr'] | readonly ['en'] | readonly ['fr', 'en'];

export const LABELS = {
  invoice: { fr: 'Facture', en: 'Invoice' },
  draft: { fr: 'BROUILLON', en: 'DRAFT' },
  void: { fr: 'ANNULÉE', en: 'VOID' },
  number: { fr: 'Numéro', en: 'Number' },
  issueDate: { fr: 'Date de facturation', en: 'Issue date' },
  dueDate: { fr: 'Date d’échéance', en: 'Due date' },
  period: { fr: 'Période', en: 'Period' },
  purchaseOrder: { fr: 'Bon de commande', en: 'Purchase order' },
  billTo: { fr: 'Facturé à', en: 'Bill to' },
  businessNumber: { fr: 'No d’entreprise', en: 'Business no.' },
  tpsNumber: { fr: 'No de TPS', en: 'GST no.' },
  tvqNumber: { fr: 'No de TVQ', en: 'QST no.' },
  description: { fr: 'Description', en: 'Description' },
  quantity: { fr: 'Quantité', en: 'Quantity' },
  rate: { fr: 'Prix unitaire', en: 'Unit price' },
  amount: { fr: 'Montant', en: 'Amount' },
  hours: { fr: 'h', en: 'h' },
  blocks: { fr: 'blocs', en: 'blocks' },
  fixedPrice: { fr: 'Prix fixe', en: 'Fixed price' },
  creditUsed: { fr: 'Crédit utilisé', en: 'Credit used' },
  creditBalance: { fr: 'Solde du crédit', en: 'Credit balance' },
  notTaxable: { fr: 'non taxable', en: 'non-taxable' },
  subtotal: { fr: 'Sous-total', en: 'Subtotal' },
  discount: { fr: 'Remise', en: 'Discount' },
  total: { fr: 'Total', en: 'Total' },
  amountPaid: { fr: 'Montant payé', en: 'Amount paid' },
  amountDue: { fr: 'Solde dû', en: 'Amount due' },
  memo: { fr: 'Note', en: 'Memo' },
  page: { fr: 'Page {k} de {n}', en: 'Page {k} of {n}' },
} as const satisfies Record<string, Record<Language, string>>;

export type Label = keyof typeof LABELS;

/** `label` in `languages`, French then English joined by ` / ` (once where both say the same: `Total`). */
export function say(languages: Languages, label: Label, values: Record<string, string> = {}): string {
  const words = languages.map((language) => LABELS[label][language].replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? ''));
  return [...new Set(words)].join(' / ');
}
