/** A Québec business's profile (contract, "Business profile and the invoice document"): every field a document shows, TPS and TVQ as its default taxes. */
export const QUEBEC_PROFILE = {
  company_name: 'Studio Érable inc.',
  company_email: 'facturation@erable.test',
  company_address: '123 rue Saint-Denis\nMontréal QC H2X 1K1',
  website: 'https://erable.test',
  phone: '+1 514 555 0100',
  business_number: '1234567890',
  tps_number: '123456789 RT0001',
  tvq_number: '1234567890 TQ0001',
  invoice_footer: 'Merci de votre confiance.',
  default_taxes: [
    { name: 'TPS', rate: 5 },
    { name: 'TVQ', rate: 9.975 },
  ],
};
