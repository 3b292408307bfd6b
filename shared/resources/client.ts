/** The client's field schemas (its declaration is in registry.ts). */
import * as v from 'valibot';
import { LIMITS, email, enumOf, taxId, text, timestamp, webUrl } from '../schemas/fields.ts';
import { defineFields } from './define.ts';
import { client } from './registry.ts';

export const clientSchemas = defineFields(client, {
  company_name: text('company_name', LIMITS.nameLength),
  company_email: email('company_email'),
  company_address: v.nullable(text('company_address', LIMITS.addressLength)),
  website: v.nullable(webUrl('website')),
  status: v.optional(enumOf('status', ['LEAD', 'ACTIVE', 'SLEEPING', 'LOST']), 'LEAD'),
  language: v.optional(enumOf('language', ['ENGLISH', 'FRENCH']), 'ENGLISH'),
  business_number: v.nullable(taxId('business_number')),
  tps_number: v.nullable(taxId('tps_number')),
  tvq_number: v.nullable(taxId('tvq_number')),
  relationship_start_date: timestamp('relationship_start_date'),
});
