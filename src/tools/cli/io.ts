import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { Api } from '../../core/api.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import type { RuntimeProblem } from './node-line.js';
import { didYouMean } from './suggest.js';

/*
 * What every command shares: its exit codes, argument parsing that turns a mistake into a usage
 * error, output as text or JSON, colour, and credentials from flags or the environment. It loads
 * nothing of the library, so that `payorch --version` and `payorch --help` do not either.
 */

/** Exit codes: 0 the operation succeeded, 1 it failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** The command line is wrong: exit 2, with the command's usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The operation ran and failed (a refused request, an unreachable host): exit 1. */
export class OperationError extends Error {
  override name = 'OperationError';
}

/** Where a command writes, and how. */
export interface Io {
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly env: NodeJS.ProcessEnv;
  /**
   * The directory the command runs in: the merchant's project, whose node_modules hold the
   * packages a command loads from it (`payorch dead-letters` loads pg-boss or bullmq). The
   * executable leaves it out (the process's own); tests running a command in-process pass one.
   */
  readonly cwd?: string;
  /**
   * Ends a long-running command (the sandbox) as Ctrl+C does; the executable leaves it out and
   * relies on SIGINT and SIGTERM, tests running a command in-process pass one.
   */
  readonly signal?: AbortSignal;
  /**
   * Why the runtime is not supported (a Node below package.json `engines`, src/tools/cli/node-line.ts),
   * found by the executable: main() says it once on stderr; `payorch doctor` reports it as a check.
   */
  readonly unsupportedRuntime?: RuntimeProblem;
}

/** One command: its usage text (for --help and `payorch help <command>`) and how it runs. */
export interface Command {
  readonly usage: string;
  /** Resolves to the exit code; throws UsageError or OperationError for exits 2 and 1. */
  readonly run: (args: readonly string[], io: Io) => Promise<number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** `--json` and `--help`, which every command takes. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

/**
 * node:util parseArgs, strict, with its errors (unknown option, missing value) as usage errors in
 * our words: node's own text names its API and, for an unknown option, ends on an unbalanced quote.
 */
export function parse<const O extends Options>(args: readonly string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error, Object.keys(options)));
  }
}

function parseArgsMessage(error: unknown, names: readonly string[]): string {
  const text = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  // Node quotes what it refuses first: '--verbose', '--data <value>', 'x'.
  const quoted = /'([^']*)'/.exec(text)?.[1] ?? '';
  const flag = quoted.split(' ')[0] ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${flag}${didYouMean(flag, names.map((name) => `--${name}`))}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (text.includes('does not take an argument')) return `${flag} takes no value`;
      if (text.includes('ambiguous')) return `${flag} needs a value; write a value that starts with a dash as ${flag}=-…`;
      return `${flag} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}: this command takes options only (quote a value that holds spaces, and close every quote)`;
    default:
      return text;
  }
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything (https://no-color.org). */
export function colours(stream: Io['stdout'], env: NodeJS.ProcessEnv) {
  const on = stream.isTTY === true && (env['NO_COLOR'] ?? '') === '';
  const paint = (code: number) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { green: paint(32), red: paint(31), yellow: paint(33), dim: paint(2), bold: paint(1) };
}

export { printable } from '../cli-internals.js';

/** Writes a line to stdout: the JSON value with `--json`, the text otherwise. */
export function emit(io: Io, json: boolean, text: () => string, value: () => unknown): void {
  io.stdout.write(json ? `${JSON.stringify(value(), null, 2)}\n` : `${text()}\n`);
}

/** A flag's value, else the environment variable's, else undefined; empty counts as unset. */
export function fromFlagOrEnv(flag: string | undefined, io: Io, name: string): string | undefined {
  const value = flag ?? io.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** Like {@link fromFlagOrEnv}, but a usage error naming both the flag and the variable when neither is set. */
export function requireSetting(flag: string | undefined, io: Io, flagName: string, envName: string): string {
  const value = fromFlagOrEnv(flag, io, envName);
  if (value === undefined) throw new UsageError(`${flagName} is required (or set ${envName})`);
  return value;
}

/** The keys of one account, from flags or the environment names of the examples. */
export interface AccountKeys {
  readonly apiKey: string;
  readonly secretKey: string;
}

/** Environment variable names of each account's keys (the names the examples read). */
export const KEY_VARIABLES = {
  provider: { apiKey: ENVIRONMENT_NAMES.providerApiKey, secretKey: ENVIRONMENT_NAMES.providerSecretKey },
  dealer: { apiKey: ENVIRONMENT_NAMES.dealerApiKey, secretKey: ENVIRONMENT_NAMES.dealerSecretKey },
} as const;

export const CREDENTIAL_OPTIONS = {
  'api-key': { type: 'string' },
  'secret-key': { type: 'string' },
  'secret-key-file': { type: 'string' },
  'secret-key-stdin': { type: 'boolean', default: false },
} as const satisfies Options;

/**
 * The help lines of the secret key options, shared by every command that signs. `account` names
 * the environment variables that apply.
 */
export function secretKeyHelp(variables: string): string {
  return `  --secret-key-file <path> read the secret key from a file (one trailing newline is dropped)
  --secret-key-stdin       read the secret key from standard input
  --secret-key <key>       the secret key itself: avoid it, other local users (ps) and your shell
                           history can read it; warns on stderr
                           (default ${variables}); never printed`;
}

/** The secret key options of one flag name (`secret-key`, `dealer-secret-key`). */
export interface SecretValues {
  readonly [flag: string]: unknown;
}

/**
 * A secret from exactly one of `--<flag>-file`, `--<flag>-stdin` or `--<flag>`, else the
 * environment variable (none for a key given only on purpose); undefined when none is set. A
 * secret on the command line still works, but is in /proc/<pid>/cmdline (every local user's `ps`)
 * for the whole run and in the shell's history: it gets a warning on stderr.
 */
export async function secretFromOptions(values: SecretValues, io: Io, flag: string, envName: string | undefined): Promise<string | undefined> {
  const inline = values[flag];
  const file = values[`${flag}-file`];
  const stdin = values[`${flag}-stdin`] === true;
  const given = [typeof inline === 'string', typeof file === 'string', stdin].filter(Boolean).length;
  if (given > 1) throw new UsageError(`give the secret key one way: --${flag}-file, --${flag}-stdin or --${flag}`);
  let value: string | undefined;
  if (typeof file === 'string') value = dropNewline(await readInput(file, io));
  else if (stdin) value = dropNewline(await readInput('-', io));
  else if (typeof inline === 'string') {
    io.stderr.write(`payorch: warning: --${flag} on the command line can be read by other local users (ps, /proc) and stays in your shell history; use --${flag}-file${envName === undefined ? ' or' : ','} --${flag}-stdin${envName === undefined ? '' : ` or ${envName}`}\n`);
    value = inline;
  } else value = envName === undefined ? undefined : io.env[envName];
  if ((typeof file === 'string' || stdin) && value === '') throw new UsageError(`the secret key read from ${stdin ? 'standard input' : String(file)} is empty`);
  return value === undefined || value === '' ? undefined : value;
}

/** A key file written by `echo` ends with a newline that is not part of the key. */
function dropNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** The account's keys from `--api-key` and the secret key options, else its environment variables. */
export async function accountKeys(values: SecretValues & { readonly 'api-key'?: string | undefined }, io: Io, account: Api): Promise<AccountKeys> {
  const names = KEY_VARIABLES[account];
  const apiKey = requireSetting(values['api-key'], io, '--api-key', names.apiKey);
  const secretKey = await secretFromOptions(values, io, 'secret-key', names.secretKey);
  if (secretKey === undefined) throw new UsageError(`--secret-key-file, --secret-key-stdin or --secret-key is required (or set ${names.secretKey})`);
  return { apiKey, secretKey };
}

/** Reads a file, or standard input for `-`. */
export async function readInput(path: string, io: Io): Promise<string> {
  if (path !== '-') {
    const { readFile } = await import('node:fs/promises');
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The command-line flag of each SDK option a message may name. */
const FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  baseUrl: '--base-url',
  apiKey: '--api-key',
  secretKey: '--secret-key',
  credentialKey: '--credential-key',
  allowInsecureHttp: '--allow-insecure-http',
  dealerCardWithoutHeaders: '--dealer-card-without-headers',
  maxAgeSeconds: '--max-age',
  toleranceSeconds: '--tolerance',
};
const OPTION_NAMES = new RegExp(`\\b(${Object.keys(FLAG_OF_OPTION).join('|')})\\b`, 'g');

/** An SDK message as a command-line user reads it: `baseUrl` becomes `--base-url`. */
export const inFlags = (message: string): string => message.replace(OPTION_NAMES, (name) => FLAG_OF_OPTION[name] ?? name);
