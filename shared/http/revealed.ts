/**
 * A replay of a reply that revealed attributes stored beside the resource (a webhook endpoint's
 * secret, answered by its create alone): the record holds the body without them and where they
 * are kept; the replay reads them from their item and puts them back where the first reply had
 * them (last). When the item is gone, they are left out. Only the function of the operation whose
 * records reveal attributes holds this (`defineCreateHandler`'s `revealedBody`).
 */
import { getItem } from '../data/writes.ts';
import type { StoredRecord } from './idempotency.ts';

export async function revealedBody(stored: StoredRecord): Promise<string> {
  const { PK, SK, attributes } = stored.revealed!;
  const item = await getItem({ PK, SK });
  const shown = attributes.filter((name) => item?.[name] !== undefined);
  return shown.length > 0 ? `${stored.body.slice(0, -1)}${shown.map((name) => `,${JSON.stringify(name)}:${JSON.stringify(item![name])}`).join('')}}` : stored.body;
}
