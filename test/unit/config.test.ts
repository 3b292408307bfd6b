/**
 * The functions' configuration (shared/core/config.ts `config`), checked by hand at first use: what it
 * refuses, and what it defaults.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const SAVED = { TABLE_NAME: process.env.TABLE_NAME, DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, AWS_REGION: process.env.AWS_REGION };

/** config() of a fresh copy of config.ts (nothing loaded yet), over `env`. */
async function configWith(env: Partial<Record<keyof typeof SAVED, string>>) {
  vi.resetModules();
  for (const name of Object.keys(SAVED) as (keyof typeof SAVED)[]) {
    if (env[name] === undefined) delete process.env[name];
    else process.env[name] = env[name];
  }
  return (await import('../../shared/core/config.ts')).config;
}

afterEach(() => {
  for (const [name, value] of Object.entries(SAVED)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('function configuration', () => {
  it('reads TABLE_NAME, DYNAMODB_ENDPOINT when set, and AWS_REGION (us-east-1 by default)', async () => {
    expect((await configWith({ TABLE_NAME: 'timebill' }))()).toEqual({ TABLE_NAME: 'timebill', AWS_REGION: 'us-east-1' });
    expect((await configWith({ TABLE_NAME: 'timebill', DYNAMODB_ENDPOINT: 'http://localhost:8000', AWS_REGION: 'eu-west-3' }))()).toEqual({
      TABLE_NAME: 'timebill',
      DYNAMODB_ENDPOINT: 'http://localhost:8000',
      AWS_REGION: 'eu-west-3',
    });
  });

  it('names every variable it refuses: TABLE_NAME missing or under 3 characters, DYNAMODB_ENDPOINT not a URL', async () => {
    expect(await configWith({})).toThrow('Invalid function configuration: check TABLE_NAME');
    expect(await configWith({ TABLE_NAME: 'tb' })).toThrow('Invalid function configuration: check TABLE_NAME');
    expect(await configWith({ TABLE_NAME: 'timebill', DYNAMODB_ENDPOINT: 'localhost 8000' })).toThrow('Invalid function configuration: check DYNAMODB_ENDPOINT');
    expect(await configWith({ DYNAMODB_ENDPOINT: 'nope' })).toThrow('Invalid function configuration: check TABLE_NAME, DYNAMODB_ENDPOINT');
  });
});
