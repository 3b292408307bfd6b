/**
 * Temporary directories for test files, removed by the file's afterAll
 * (`afterAll(removeTempDirs)`): nothing a test makes stays behind in os.tmpdir() run after run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new directory in os.tmpdir() named `prefix` and a random suffix, removed by removeTempDirs. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs() {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
