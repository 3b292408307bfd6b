/**
 * Log lines in tests. A green run prints no WARN or ERROR line: a test that provokes one captures
 * it and asserts on it, either in its own process (`withLogs`, for handlers it runs itself) or in
 * the shared local stack's log (`stackWarnings`, see stack-log.ts).
 */
import { inject, vi } from 'vitest';
import { isWarnOrError, logRecords, markAsserted, readStackLog, type LogRecord } from './stack-log.ts';

export type { LogRecord };

/** The JSON log records written to this process's stdout and stderr while `work` ran (kept from the output). */
export async function withLogs<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; lines: LogRecord[] }> {
  const written: string[] = [];
  const capture = (chunk: string | Uint8Array) => (written.push(String(chunk)), true);
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    const [result] = await Promise.allSettled([work()]);
    return { result: result!, lines: logRecords(written.join('')) };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** As `withLogs`, for work that must succeed: its value, and the records. */
export async function valueWithLogs<T>(work: () => Promise<T>): Promise<{ value: T; lines: LogRecord[] }> {
  const { result, lines } = await withLogs(work);
  if (result.status === 'rejected') throw result.reason;
  return { value: result.value, lines };
}

/**
 * The shared stack's WARN and ERROR records of `workspaceId` so far. Reading them asserts them:
 * the run's end prints only those of workspaces no test read this way.
 */
export function stackWarnings(workspaceId: string): LogRecord[] {
  const stateDir = inject('stateDir');
  markAsserted(stateDir, workspaceId);
  return readStackLog(stateDir).filter((r) => r.workspace_id === workspaceId && isWarnOrError(r));
}
