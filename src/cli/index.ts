#!/usr/bin/env node
// The `payorch` command: a merchant's debugging companion. Each command lives in its own file and
// is loaded only when it runs, so that `payorch --version` does not pay for the sandbox or zod.
import { readFileSync } from 'node:fs';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, OperationError, UsageError } from './io.js';
import type { Command, Io } from './io.js';

const COMMANDS: Readonly<Record<string, { readonly summary: string; readonly load: (version: string) => Promise<Command> }>> = {
  sandbox: { summary: 'serve a local sandbox of the service', load: async () => (await import('./sandbox.js')).sandboxCommand },
  trigger: { summary: 'send a signed test callback to your receiver', load: async () => (await import('./trigger.js')).triggerCommand },
  verify: { summary: 'verify a captured callback, or say why it is refused', load: async () => (await import('./verify.js')).verifyCommand },
  sign: { summary: 'print signed request headers as curl -H arguments', load: async () => (await import('./sign.js')).signCommand },
  call: { summary: 'run any SDK operation by its public name', load: async () => (await import('./call.js')).callCommand },
  doctor: { summary: 'check reachability, TLS, clock and keys, with fixes', load: async () => (await import('./doctor.js')).doctorCommand },
  openapi: { summary: 'print an OpenAPI 3.1 document of the service', load: async (version) => (await import('./openapi.js')).openapiCommand(version) },
};

const USAGE = `Usage: payorch <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(10)} ${summary}`)
  .join('\n')}

Options:
  -h, --help       show this text; payorch help <command> (or <command> --help) for one command
  -v, --version    print the version

Credentials come from flags or from the environment: PAYORCH_BASE_URL,
PAYORCH_PROVIDER_API_KEY, PAYORCH_PROVIDER_SECRET_KEY, PAYORCH_CREDENTIAL_KEY,
PAYORCH_SITES_KEY, PAYORCH_DEALER_API_KEY, PAYORCH_DEALER_SECRET_KEY.
Exit status: 0 success, 1 the operation failed, 2 bad usage. Colour only on a terminal; NO_COLOR turns it off.`;

// dist/cli.js sits one level below the package root in the repository and when installed.
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}

async function command(name: string, version: string): Promise<Command> {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}`);
  return entry.load(version);
}

async function main(argv: readonly string[], io: Io): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') {
    io.stdout.write(`${USAGE}\n`);
    return first === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const version = packageVersion();
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
  if (first.startsWith('-')) throw new UsageError(`unknown option ${first}`);
  return (await command(first, version)).run(rest, io);
}

const io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      io.stderr.write(`payorch: ${error.message}\nRun payorch --help, or payorch <command> --help.\n`);
      process.exitCode = EXIT_USAGE;
    } else if (error instanceof OperationError) {
      io.stderr.write(`payorch: ${error.message}\n`);
      process.exitCode = EXIT_FAILED;
    } else {
      // A bug or an unexpected failure: say what it was, without a stack full of bundle paths.
      io.stderr.write(`payorch: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
      process.exitCode = EXIT_FAILED;
    }
  },
);
