/** Projects: units of work of a client, with their billing configuration. Their one rule of their own: the dates. */
import * as v from 'valibot';
import { invalidParam } from '../core/errors.ts';
import { notBeforeMessage } from '../model/cross-field.ts';
import { DATA_ATTRIBUTE } from '../data/table.ts';
import { project, type projectSchemas } from '../model/resources.ts';
import type { Project } from '../model/objects.ts';
import type { CallerContext, IfMatch, Versioned } from './context.ts';
import { create, update, type UpdateRules } from './entity.ts';

const END_BEFORE_START = notBeforeMessage('end_date', 'start_date');
/** Order rules compare instants, never the text of timestamps. */
const isBefore = (a: string, b: string) => Date.parse(a) < Date.parse(b);

/** Creates the project, counted on its client (which must exist) in the same transaction. */
export async function createProject(ctx: CallerContext, input: v.InferOutput<typeof projectSchemas.create>, now = new Date()): Promise<Versioned<Project>> {
  const startDate = input.start_date ?? now.toISOString();
  if (input.end_date != null && isBefore(input.end_date, startDate)) throw invalidParam('end_date', END_BEFORE_START);
  return create(ctx, project, { ...input, start_date: startDate }, now);
}

/** Changes the fields sent; the dates stay ordered, also when only one of them is sent. */
export async function updateProject(
  ctx: CallerContext,
  id: string,
  patch: v.InferOutput<typeof projectSchemas.update>,
  expectedVersion?: IfMatch,
  now = new Date(),
): Promise<Versioned<Project>> {
  const start = patch.start_date;
  const end = patch.end_date;
  if (start !== undefined && end != null && isBefore(end, start)) throw invalidParam('end_date', END_BEFORE_START);
  return update(ctx, project, id, patch, expectedVersion, now, dateRule(start, end));
}

/**
 * Only one side of the date range sent: the other is in the item, so the write checks it.
 * Stored timestamps are all UTC, milliseconds, years 1900..9999: as strings they sort as instants.
 */
function dateRule(start: string | undefined, end: string | null | undefined): UpdateRules {
  if (start === undefined && end != null) {
    return {
      condition: { expression: '#data.#start_date <= :f_end_date', names: { '#data': DATA_ATTRIBUTE, '#start_date': 'start_date' } },
      refused: () => invalidParam('end_date', END_BEFORE_START),
    };
  }
  if (start !== undefined && end === undefined) {
    return {
      condition: {
        expression: '(attribute_type(#data.#end_date, :null_type) OR #data.#end_date >= :f_start_date)',
        names: { '#data': DATA_ATTRIBUTE, '#end_date': 'end_date' },
        values: { ':null_type': 'NULL' },
      },
      // Name the field the caller sent: the stored one is what it contradicts.
      refused: () => invalidParam('start_date', 'start_date must not be after end_date'),
    };
  }
  return {};
}
