/**
 * The shared local stack's log (global-setup.ts): the stack runs the handlers in a process the
 * test runner forks (stack-process.ts), and their records go to a file in the stack's state folder
 * rather than to the runner's output. Tests read it (logs.ts); at the end of the run, the WARN and ERROR records of
 * workspaces no test asserted are printed, so an unexpected failure still shows.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type LogRecord = Record<string, unknown> & { level: string; message: string };

/** The JSON log records among `text`'s lines. */
export const logRecords = (text: string): LogRecord[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{"level":'))
    .map((line) => JSON.parse(line) as LogRecord);

export const isWarnOrError = (r: LogRecord) => r.level === 'WARN' || r.level === 'ERROR';

/** The log file, and the file naming the workspaces whose warnings a test asserted. */
export const stackLogFiles = (stateDir: string) => ({ log: join(stateDir, 'stack.log'), asserted: join(stateDir, 'asserted-workspaces') });

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

export const readStackLog = (stateDir: string): LogRecord[] => logRecords(read(stackLogFiles(stateDir).log));

export const markAsserted = (stateDir: string, workspaceId: string) => appendFileSync(stackLogFiles(stateDir).asserted, `${workspaceId}\n`);

/** The WARN and ERROR records of the log that belong to no asserted workspace. */
export function unassertedWarnings(stateDir: string): LogRecord[] {
  const asserted = new Set(read(stackLogFiles(stateDir).asserted).split('\n'));
  return readStackLog(stateDir).filter((r) => isWarnOrError(r) && !asserted.has(String(r.workspace_id)));
}
