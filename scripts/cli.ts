/**
 * The command line of every script (scripts/, `npm run bench`, `npm run soak`): node:util
 * parseArgs, plus what a person at a terminal expects. `--help` (or `-h`) prints the usage and
 * exits 0; a mistake (an unknown option, a missing value) prints what is wrong and the usage,
 * without a stack trace, and exits 2; `--name -10` is read as `--name=-10` (parseArgs alone
 * refuses a value that starts with a dash).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the command line or the configuration: reported without a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<T extends Options, P extends boolean> = ReturnType<typeof parseArgs<{ options: T; allowPositionals: P; strict: true }>>;

/**
 * Parses `args` (the process's by default) against `options`, or exits: 0 after printing `usage`
 * for --help, 2 after printing the mistake and `usage`.
 */
export function parseCommandLine<T extends Options, P extends boolean = false>(
  config: { options: T; allowPositionals?: P; args?: string[] },
  usage: string,
): Parsed<T, P> {
  const args = config.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({
      options: config.options,
      allowPositionals: (config.allowPositionals ?? false) as P,
      strict: true,
      args: joinNegativeValues(args, config.options),
    }) as Parsed<T, P>;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${usage}\n`);
    process.exit(2);
  }
}

/** `--name -10` → `--name=-10` for string options, so negative numbers need no `=`. */
export function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && Object.hasOwn(options, name) && options[name]!.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** Runs a script's main when the file is run as a script (not imported by a test); usage errors exit 2 without a stack trace. */
export function runWhenMain(moduleUrl: string, main: () => Promise<void>, label?: string): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  main().catch((error: unknown) => {
    const message = error instanceof UsageError ? error.message : describe(error);
    console.error(label ? `${label}: ${message}` : message);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  });
}
