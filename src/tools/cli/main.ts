// The `payorch` command line without its process: what index.ts runs with the real streams, and
// what the tests run in-process with their own. Each command lives in its own file and is loaded
// only when it runs, so that `payorch --version` does not pay for the sandbox or zod.
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, OperationError, UsageError, printable } from './io.js';
import type { Command, Io } from './io.js';
import { didYouMean } from './suggest.js';

const COMMANDS: Readonly<Record<string, { readonly summary: string; readonly load: (version: string) => Promise<Command> }>> = {
  sandbox: { summary: 'serve a local sandbox of the service', load: async () => (await import('./sandbox.js')).sandboxCommand },
  trigger: { summary: 'send a signed test callback to your receiver', load: async () => (await import('./trigger.js')).triggerCommand },
  verify: { summary: 'verify a captured callback, or say why it is refused', load: async () => (await import('./verify.js')).verifyCommand },
  sign: { summary: 'print signed request headers as curl -H arguments', load: async () => (await import('./sign.js')).signCommand },
  call: { summary: 'run any SDK operation by its public name', load: async () => (await import('./call.js')).callCommand },
  reconcile: { summary: 'read card payments\' status and say what a receiver would apply', load: async () => (await import('./reconcile.js')).reconcileCommand },
  'dead-letters': { summary: 'list, show, replay or purge the dead letters of a pg-boss or BullMQ queue', load: async () => (await import('./dead-letters.js')).deadLettersCommand },
  migrate: { summary: 'create or migrate a table of payorch\'s to this version, keeping its rows', load: async () => (await import('./migrate.js')).migrateCommand },
  doctor: { summary: 'check reachability, TLS, clock and keys, with fixes', load: async () => (await import('./doctor.js')).doctorCommand },
  openapi: { summary: 'print an OpenAPI 3.1 document of the service', load: async (version) => (await import('./openapi.js')).openapiCommand(version) },
};

const USAGE = `Usage: payorch <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(12)} ${summary}`)
  .join('\n')}

Options:
  -h, --help       show this text; payorch help <command> (or <command> --help) for one command
  -v, --version    print the version

Credentials come from flags or from the environment: PAYORCH_BASE_URL,
PAYORCH_PROVIDER_API_KEY, PAYORCH_PROVIDER_SECRET_KEY, PAYORCH_CREDENTIAL_KEY,
PAYORCH_SITES_KEY, PAYORCH_DEALER_API_KEY, PAYORCH_DEALER_SECRET_KEY.
Exit status: 0 success, 1 the operation failed, 2 bad usage. Colour only on a terminal; NO_COLOR turns it off.`;

async function command(name: string, version: string): Promise<Command> {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}${didYouMean(name, Object.keys(COMMANDS))}`);
  return entry.load(version);
}

/**
 * Runs `payorch ...argv` and resolves to its exit code. Usage errors and failures are written to
 * `io.stderr` here, naming the command that refused (`payorch call: ...`) and where its help is.
 */
export async function main(argv: readonly string[], io: Io, version: string): Promise<number> {
  const [first, ...rest] = argv;
  // The command a usage error belongs to, once it is known to be one.
  let running: string | undefined;
  // Once per run; doctor reports it among its checks instead, unless it stops before its report.
  const warnRuntime = (): void => {
    if (io.unsupportedRuntime !== undefined) io.stderr.write(`payorch: warning: ${io.unsupportedRuntime.problem}; ${io.unsupportedRuntime.fix}\n`);
  };
  if (first !== 'doctor') warnRuntime();
  try {
    if (first === undefined || first === '--help' || first === '-h') {
      io.stdout.write(`${USAGE}\n`);
      return first === undefined ? EXIT_USAGE : EXIT_OK;
    }
    if (first === '--version' || first === '-v') {
      io.stdout.write(`payorch ${version}\n`);
      return EXIT_OK;
    }
    if (first === 'help') {
      if (rest.length === 0) {
        io.stdout.write(`${USAGE}\n`);
        return EXIT_OK;
      }
      if (rest.length > 1) throw new UsageError('help takes one command name');
      io.stdout.write(`${(await command(rest[0] ?? '', version)).usage}\n`);
      return EXIT_OK;
    }
    if (first.startsWith('-')) throw new UsageError(`unknown option ${first}${didYouMean(first, ['--help', '--version'])}`);
    const loaded = await command(first, version);
    running = first;
    return await loaded.run(rest, io);
  } catch (error) {
    if (first === 'doctor') warnRuntime();
    const who = running === undefined ? 'payorch' : `payorch ${running}`;
    if (error instanceof UsageError) {
      io.stderr.write(`${who}: ${printable(error.message)}\nSee ${who} --help.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof OperationError) {
      io.stderr.write(`${who}: ${printable(error.message)}\n`);
      return EXIT_FAILED;
    }
    // A bug or an unexpected failure: say what it was, without a stack full of bundle paths.
    io.stderr.write(`${who}: ${printable(error instanceof Error ? `${error.name}: ${error.message}` : String(error))}\n`);
    return EXIT_FAILED;
  }
}
