/**
 * The font of the documents: DejaVu Sans (npm `dejavu-fonts-ttf`, pinned in package-lock.json;
 * Bitstream Vera licence with DejaVu's public-domain changes, docs/decisions/0034). It draws every
 * assigned code point of Basic Latin, Latin-1 Supplement, Latin Extended-A and -B, Greek and
 * Cyrillic. Found by Node's resolution: from the repository's node_modules when run from source,
 * from the copy infra/stack.ts places beside the function's bundle (`BUNDLED_FILES`) in AWS.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const FONT_FILE = 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf';

/** The font's bytes: read once, at the function's load. */
export const readFont = (): Uint8Array => readFileSync(createRequire(import.meta.url).resolve(FONT_FILE));
