/**
 * The tests `npm run mutation` (StrykerJS, stryker.config.json) runs against each mutant: the
 * unit tests of the pure modules it mutates. The `mutation` project of vitest.config.ts is the
 * same set, for the command runner (stryker.command.config.json).
 */
import { defineConfig } from 'vitest/config';
import { MUTATION_TESTS } from './vitest.config.ts';

export default defineConfig({
  test: {
    env: { AWS_LAMBDA_LOG_LEVEL: 'WARN', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    include: [...MUTATION_TESTS],
  },
});
