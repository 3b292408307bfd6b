/**
 * One value of a deployed stack for the operator scripts: a flag, else an environment variable,
 * else the stack's outputs in cdk-outputs.json (`npx cdk deploy` writes it; `--stack-name` picks
 * the environment's stack, `--outputs-file` another file).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_STACK_NAME, OUTPUTS_FILE } from '../infra/names.ts';

export interface OutputFlags {
  readonly 'stack-name'?: string | undefined;
  readonly 'outputs-file'?: string | undefined;
}

export function stackOutput(
  source: { flag: string | undefined; envName: string; output: string; what: string },
  flags: OutputFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): string {
  if (source.flag) return source.flag;
  const fromEnv = env[source.envName];
  if (fromEnv) return fromEnv;
  const file = path.resolve(cwd, flags['outputs-file'] ?? OUTPUTS_FILE);
  const stackName = flags['stack-name'] ?? DEFAULT_STACK_NAME;
  const value = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>)[stackName]?.[source.output] : undefined;
  if (!value) throw new Error(`No ${source.what}: pass its flag, set ${source.envName}, or deploy so that ${OUTPUTS_FILE} holds stack ${stackName}`);
  return value;
}
