/** The time entry's field schemas (its declaration is in registry.ts). */
import * as v from 'valibot';
import { LIMITS, positiveInteger, reference, text, timestamp } from '../schemas/fields.ts';
import { defineFields } from './define.ts';
import { timeEntry } from './registry.ts';

export const timeEntrySchemas = defineFields(timeEntry, {
  project_id: v.nullable(reference('project_id')),
  /** Implied by the project when one is given (domain/time-entries.ts). */
  client_id: v.optional(reference('client_id')),
  started_at: timestamp('started_at'),
  duration_minutes: positiveInteger('duration_minutes', LIMITS.durationMinutes),
  description: v.nullable(text('description', LIMITS.descriptionLength)),
});
