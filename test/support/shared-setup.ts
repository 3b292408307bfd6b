/**
 * One thing for both projects of a directory (vitest.config.ts: `name` and `name-isolated`), whose
 * global setups each run: the first to acquire starts it, both get the same, and the last to
 * release stops it. Kept on globalThis, as vitest may load a setup module once per project.
 */
export interface SharedAcrossProjects<T> {
  acquire(): Promise<T>;
  release(): Promise<void>;
}

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
