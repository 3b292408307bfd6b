import { startDynamoDbLocal } from '../../infra/local/dynamodb.ts';

/**
 * One thing for several projects (vitest.config.ts: a directory's `name` and `name-isolated`, or
 * more), whose global setups each run: the first to acquire starts it, all get the same, and the
 * last to release stops it. Kept on globalThis, as vitest may load a setup module once per project.
 */
export interface SharedAcrossProjects<T> {
  acquire(): Promise<T>;
  release(): Promise<void>;
}

/** One DynamoDB Local for the whole run: the integration projects' stack and the infra projects' tables. */
export const sharedDynamoDbLocal = shareAcrossProjects('timebill.dynamodb-local', () => startDynamoDbLocal(), (local) => local.stop());

export function shareAcrossProjects<T>(key: string, start: () => Promise<T>, stop: (shared: T) => Promise<void>): SharedAcrossProjects<T> {
  const symbol = Symbol.for(key);
  const registry = globalThis as { [key: symbol]: { value: Promise<T>; users: number } | undefined };
  return {
    async acquire() {
      const entry = (registry[symbol] ??= { value: start(), users: 0 });
      const value = await entry.value;
      entry.users++;
      return value;
    },
    async release() {
      const entry = registry[symbol];
      if (!entry || --entry.users > 0) return;
      delete registry[symbol];
      await stop(await entry.value);
    },
  };
}
