/**
 * The structured log lines (shared/core/log.ts) a piece of code writes, captured instead of printed, so
 * that a test which provokes an error asserts its line and a green run stays quiet.
 */
import { vi } from 'vitest';

export interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly [field: string]: unknown;
}

/** Runs `action` with stdout and stderr captured; returns its result and the JSON log lines written. */
export async function captureLogs<T>(action: () => Promise<T>): Promise<{ result: T; lines: LogLine[] }> {
  let written = '';
  const capture = (chunk: string | Uint8Array) => {
    written += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    const result = await action();
    const lines = written
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
    return { result, lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
