/** The project's field schemas (its declaration is in registry.ts). */
import * as v from 'valibot';
import { LIMITS, enumOf, money, positiveInteger, reference, text, timestamp } from '../schemas/fields.ts';
import { defineFields } from './define.ts';
import { project } from './registry.ts';

export const projectSchemas = defineFields(project, {
  name: text('name', LIMITS.nameLength),
  description: v.nullable(text('description', LIMITS.descriptionLength)),
  status: v.optional(enumOf('status', ['ACTIVE', 'COMPLETED', 'ON_HOLD', 'CANCELLED']), 'ACTIVE'),
  billing_type: enumOf('billing_type', ['Weekly', 'BiMonthly', 'Monthly', 'CreditBased', 'Retainer', 'ProjectBased']),
  hourly_rate: v.nullable(money('hourly_rate')),
  fixed_price: v.nullable(money('fixed_price')),
  amount: v.nullable(money('amount')),
  interval_count: v.nullable(positiveInteger('interval_count', LIMITS.intervalCount)),
  interval_unit: v.nullable(enumOf('interval_unit', ['Day', 'Week', 'Month', 'Year'])),
  client_id: reference('client_id'),
  /** Defaults to the creation time (domain/projects.ts). */
  start_date: v.optional(timestamp('start_date')),
  end_date: v.nullable(timestamp('end_date')),
});
