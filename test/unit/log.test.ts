/**
 * shared/core/log.ts: one JSON line per record, warnings and errors on stderr, records below
 * AWS_LAMBDA_LOG_LEVEL dropped (vitest.config.ts sets WARN), and redirectLogs for a host that runs
 * the handlers in its own process (the tests' shared local stack).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as logger from '../../shared/core/log.ts';
import { redirectLogs } from '../../shared/core/log.ts';

afterEach(() => {
  redirectLogs(undefined);
  vi.restoreAllMocks();
});

describe('the logger', () => {
  it('writes warnings and errors to stderr as one JSON line each, with errors made readable', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    logger.warn('Careful', { n: 1 });
    logger.error('Broken', { error: new TypeError('bad') });
    logger.info('Dropped below WARN');
    expect(stdout).not.toHaveBeenCalled();
    const lines = stderr.mock.calls.map(([chunk]) => String(chunk));
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const [warn, error] = lines.map((line) => JSON.parse(line));
    expect(warn).toEqual({ level: 'WARN', message: 'Careful', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), n: 1 });
    expect(error).toMatchObject({ level: 'ERROR', message: 'Broken', error: { name: 'TypeError', message: 'bad', stack: expect.stringContaining('TypeError: bad') } });
  });

  it('sends every record to the sink redirectLogs gives, and back to the streams without one', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const sunk: [string, string][] = [];
    redirectLogs((level, line) => sunk.push([level, line]));
    logger.error('To the sink');
    expect(stderr).not.toHaveBeenCalled();
    expect(sunk).toEqual([['ERROR', expect.stringContaining('"message":"To the sink"')]]);
    redirectLogs(undefined);
    logger.warn('To stderr again');
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(sunk).toHaveLength(1);
  });
});
