import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * What `npm run mutation` (StrykerJS, stryker.config.json) runs against each mutant: the unit
 * tests of the pure modules it mutates. Only defined for it (VITEST_MUTATION=1), so `npm test`
 * does not run these files twice.
 */
export const MUTATION_TESTS = [
  'test/unit/cursor.test.ts',
  'test/unit/keys.test.ts',
  'test/unit/policy.test.ts',
  'test/unit/schemas.test.ts',
  'test/unit/conditional.test.ts',
  'test/unit/registry.test.ts',
  'test/unit/entity.test.ts',
  'test/unit/fields.test.ts',
  'test/unit/load.test.ts',
] as const;

const MUTATION_PROJECT: TestProjectInlineConfiguration = { extends: true, test: { name: 'mutation', include: [...MUTATION_TESTS] } };

export default defineConfig({
  test: {
    env: { AWS_LAMBDA_LOG_LEVEL: 'WARN', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      ...(process.env.VITEST_MUTATION === '1' ? [MUTATION_PROJECT] : []),
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // infra: every environment synthesized once per run (test/infra/support/assembly.ts); no timeout that load could break.
      { extends: true, test: { name: 'infra', include: ['test/infra/**/*.test.ts'], globalSetup: ['test/infra/support/assembly.ts'], testTimeout: 0, hookTimeout: 0 } },
    ],
  },
});
