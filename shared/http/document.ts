/**
 * A resource's document as its handler answers it (contract, "Business profile and the invoice
 * document"): the bytes, named for saving, with an ETag of their own, a hash of the bytes, so that
 * the same document is the same tag (304 on If-None-Match: handler.ts) and never the JSON's.
 */
import { createHash } from 'node:crypto';
import type { Reply } from './handler.ts';
import { BodyBytes } from './respond.ts';

export function documentReply(bytes: Uint8Array, mediaType: string, fileName: string): Reply {
  return {
    status: 200,
    body: new BodyBytes(bytes),
    headers: {
      'Content-Type': mediaType,
      'Content-Disposition': `inline; filename="${fileName}"`,
      ETag: `"${createHash('sha256').update(bytes).digest('base64url')}"`,
      Vary: 'Accept',
      // A client may keep it, and asks again with If-None-Match before it shows it.
      'Cache-Control': 'private, no-cache',
    },
  };
}
