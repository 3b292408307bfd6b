/**
 * A secret of the local stack kept in its state folder (the issuer's key, the cursor key): made
 * on first use and the same ever after. Stacks started at once over one folder (test suites, a
 * second `npm start`) must all read the one that was made first, never a half-written file or a
 * key another stack then overwrote: the new file is written aside and linked into place, which
 * fails if it is there already.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function readOrCreateOnce(path: string, make: () => string | Buffer): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  const aside = `${path}.${randomUUID()}.tmp`;
  writeFileSync(aside, make(), { mode: 0o600 });
  try {
    linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another stack made it first: read theirs
  } finally {
    rmSync(aside, { force: true });
  }
  return readFileSync(path);
}
