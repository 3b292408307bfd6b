/**
 * Bundle sizes, measured by scripts/bundle-sizes.ts with the stack's own esbuild options
 * (stack.test.ts proves the script's bundles are byte-identical to the deployed assets).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/bundling.ts';
import { BUNDLE_TARGETS, MAX_BUNDLE_BYTES, measureBundles, type BundleSize } from '../../scripts/bundle-sizes.ts';
import { AUTHORIZER_ENTRY, ROUTES } from '../../shared/routes.ts';
import { BACKGROUND_FUNCTIONS } from '../../shared/background.ts';

let sizes: BundleSize[];

beforeAll(async () => {
  sizes = await measureBundles();
});

describe('bundle sizes', () => {
  it('measures every function: each route, each function that is not a route, and the authorizer', () => {
    const background = BACKGROUND_FUNCTIONS.map((f) => f.entry as string);
    expect(BUNDLE_TARGETS.map((t) => t.entry).sort()).toEqual([...ROUTES.map((r) => r.entry as string), ...background, AUTHORIZER_ENTRY].sort());
    expect(sizes).toHaveLength(ROUTES.length + background.length + 1);
  });

  it(`no bundle is over ${MAX_BUNDLE_BYTES / 1024} KB minified`, () => {
    expect(MAX_BUNDLE_BYTES).toBe(500 * 1024);
    const over = sizes.filter((s) => s.minifiedBytes > MAX_BUNDLE_BYTES).map((s) => `${s.name}: ${s.minifiedBytes} bytes`);
    expect(over).toEqual([]);
  });

  it('reports gzipped sizes and what each bundle is made of', () => {
    for (const s of sizes) {
      expect(s.gzipBytes, s.name).toBeGreaterThan(0);
      expect(s.gzipBytes, s.name).toBeLessThan(s.minifiedBytes);
      const attributed = Object.values(s.packages).reduce((a, b) => a + b, 0);
      expect(attributed, s.name).toBeLessThanOrEqual(s.minifiedBytes);
      expect(attributed, `${s.name}: most bytes are attributed to an input`).toBeGreaterThan(s.minifiedBytes * 0.9);
      expect(s.packages['(project)'], s.name).toBeGreaterThan(0);
    }
  });

  it('the command prints one line per function and fails when a bundle exceeds --max-kb', () => {
    const script = path.join(PROJECT_ROOT, 'scripts/bundle-sizes.ts');
    const tsx = path.join(PROJECT_ROOT, 'node_modules/.bin/tsx');
    let failure: { status: number; stdout: string } | undefined;
    try {
      execFileSync(tsx, [script, '--max-kb', '1'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    } catch (error) {
      failure = error as { status: number; stdout: string };
    }
    expect(failure?.status).toBe(1);
    const lines = failure!.stdout.trim().split('\n');
    for (const target of BUNDLE_TARGETS) expect(lines.some((l) => l.startsWith(`${target.name} `) && l.includes('OVER LIMIT'))).toBe(true);
    expect(lines.at(-1)).toMatch(new RegExp(`^${BUNDLE_TARGETS.length} bundles, .* minified in total; limit 1\\.0 KB per bundle$`));
  });
});
