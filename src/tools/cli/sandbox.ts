import { createSandbox } from 'payorch/sandbox';
import type { CallbackUrls, RunningSandbox } from 'payorch/sandbox';
import type { CallbackKind } from 'payorch/webhooks';
import { RequestValidationError } from 'payorch/webhooks';
import { CALLBACK_KINDS, isCallbackKind } from '../../webhooks/kinds.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import { SANDBOX_OPTIONS } from '../cli-internals.js';
import { exampleEnvironment } from './environment.js';
import { declared, numberFlag, rangeOf } from './flags.js';
import { SETTING_PARSE_OPTIONS, sandboxSettings, settingsUsage } from './sandbox-settings.js';
import { COMMON_OPTIONS, EXIT_OK, OperationError, UsageError, colours, emit, parse, printable } from './io.js';
import type { Command, Io } from './io.js';
import { rotateKeys } from './sandbox-rotate.js';

// A fixed port by default, so that scripts and the docs' examples can name it.
const DEFAULT_PORT = 4010;
const PORT: OptionDeclaration = { name: 'port', rule: { type: 'number', min: 0, max: 65_535, integer: true }, default: DEFAULT_PORT };
const ATTEMPTS = declared(SANDBOX_OPTIONS, 'callbackRetry.attempts');
const ATTEMPT_TIMEOUT = declared(SANDBOX_OPTIONS, 'callbackRetry.timeoutMs');

const USAGE = `Usage: payorch sandbox [options]
       payorch sandbox rotate-keys --account <provider|dealer> --window <seconds> [options]

Serves a local Payment Orchestration Service (Provider and Dealer APIs) over HTTP, with
controls to settle payments and deliver their callbacks, until Ctrl+C. rotate-keys gives an
account of a running sandbox new keys (payorch sandbox rotate-keys --help).

Options:
  --port <n>                  TCP port; 0 picks a free one (${rangeOf(PORT)})
  --host <address>            interface to listen on (default 127.0.0.1)
  --seed <text>               seed of the generated keys, ids and history (default payorch)
  --callback <kind=url>       where callbacks go; kind is ${CALLBACK_KINDS.join(', ')};
                              repeat for several kinds
  --callback-retries <n>      delivery attempts of a callback, the first included (${rangeOf(ATTEMPTS)})
  --callback-timeout <ms>     time one delivery attempt may take (${rangeOf(ATTEMPT_TIMEOUT)})
  --callback-keep-signature   redeliver a callback with its first signature instead of re-signing
                              it, as a service that does not re-sign would (tests maximum-age rules)
  --config <file.json>        any createSandbox() options as one JSON object (sites, gateways,
                              accounts, startTime as an ISO time); the flags win over it

Every other createSandbox() option is a flag of its own (the option it sets, its range):
${settingsUsage(28).join('\n')}

Output:
  --env                       print only the credentials, as sh export lines (eval them)
  --json                      print one JSON object: url, credentials (by variable name), sites
                              and callbackUrls
  -h, --help                  show this text

Examples:
  payorch sandbox --port 0
  payorch sandbox --port 0 --env > sandbox.env & sleep 1; . ./sandbox.env   # in a script
  payorch sandbox --callback deposit=http://127.0.0.1:3000/webhooks --callback-retries 3
  payorch sandbox --transfer-completion-seconds 60 --config sandbox.json`;

function callbackUrls(entries: readonly string[]): CallbackUrls {
  const urls: Partial<Record<CallbackKind, string>> = {};
  for (const entry of entries) {
    const [kind = '', url = ''] = entry.split(/=(.*)/s);
    if (!isCallbackKind(kind)) throw new UsageError(`--callback takes kind=url with kind one of ${CALLBACK_KINDS.join(', ')}; got kind "${printable(kind)}" in ${printable(entry)}`);
    if (!URL.canParse(url)) throw new UsageError(`--callback takes kind=url with an absolute URL (http://127.0.0.1:3000/webhooks); got "${printable(url)}" for ${kind}`);
    urls[kind] = url;
  }
  return urls;
}

/** Single quotes for a shell, so that any value survives `eval`. */
const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

async function listen(port: number, host: string, start: (port: number) => Promise<RunningSandbox>): Promise<RunningSandbox> {
  try {
    return await start(port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'EADDRINUSE') throw new OperationError(`Port ${port} on ${host} is already in use. Pass --port 0 to pick a free port, or stop what holds it.`);
    if (code === 'EADDRNOTAVAIL') throw new OperationError(`${host} is not an address of this machine (--host).`);
    if (code === 'EACCES') throw new OperationError(`Port ${port} needs privileges; pick a port above 1023, or --port 0.`);
    throw error;
  }
}

async function run(args: readonly string[], io: Io): Promise<number> {
  if (args[0] === 'rotate-keys') return rotateKeys(args.slice(1), io);
  const { values } = parse(args, {
    ...COMMON_OPTIONS,
    port: { type: 'string', default: '4010' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string' },
    callback: { type: 'string', multiple: true, default: [] },
    ...SETTING_PARSE_OPTIONS,
    'callback-keep-signature': { type: 'boolean', default: false },
    config: { type: 'string' },
    env: { type: 'boolean', default: false },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (values.env && values.json) throw new UsageError('--env and --json are two formats of the same output: choose one');
  const port = numberFlag(values.port, '--port', PORT) ?? DEFAULT_PORT;
  const settings = sandboxSettings(values, values.config, values['callback-keep-signature']);
  const urls: CallbackUrls = { ...settings.callbackUrls, ...callbackUrls(values.callback) };
  let sandbox: ReturnType<typeof createSandbox>;
  try {
    sandbox = createSandbox({ ...settings, seed: values.seed ?? settings.seed, callbackUrls: urls });
  } catch (error) {
    // The flags were checked one by one; what is left came from the file.
    if (error instanceof RequestValidationError) throw new UsageError(`--config ${values.config ?? ''}: ${error.issues.map((issue) => `${issue.field} ${issue.message}`).join('; ')}`);
    throw error;
  }
  const running = await listen(port, values.host, (chosen) => sandbox.listen({ port: chosen, host: values.host }));
  // Listen for Ctrl+C before printing: whoever reads the output may signal at once.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      running.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (io.signal?.aborted === true) stop();
    else io.signal?.addEventListener('abort', stop);
  });
  const variables = exampleEnvironment(running.url, sandbox.accounts);
  const exports = Object.entries(variables).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  const { sites } = sandbox.accounts.provider;
  const configured = CALLBACK_KINDS.filter((kind) => urls[kind] !== undefined);
  const c = colours(io.stdout, io.env);
  const nowhere = 'nowhere: no callback URL is configured (--callback <kind>=<url>, or PUT /__sandbox/callback-urls)';
  if (values.env || values.json) {
    // The output is for a script; the warning is for the person who started it.
    if (configured.length === 0) io.stderr.write(`payorch sandbox: no callback URL is configured, so settling a payment delivers no callback (--callback <kind>=<url>)\n`);
  }
  if (values.env) {
    io.stdout.write(`${exports.join('\n')}\n`);
  } else {
    emit(
      io,
      values.json,
      () =>
        [
          `${c.green('payorch sandbox')} listening on ${c.bold(running.url)}`,
          '',
          'Credentials, under the names the examples and the other commands read (run these lines in your shell):',
          ...exports,
          '',
          'Sites (id, name, credential key):',
          ...sites.map((site) => `  ${site.id}  ${site.name}  ${site.credentialKey}`),
          '',
          'Callbacks go to:',
          ...CALLBACK_KINDS.map((kind) => `  ${kind.padEnd(17)} ${urls[kind] ?? c.yellow(nowhere)}`),
          ...(configured.length === 0 ? [c.yellow('Warning: no callback URL is configured, so settling a payment delivers no callback.')] : []),
          '',
          `Controls: GET ${running.url}/__sandbox lists them (settle, deliveries, clock, callback URLs, key rotation).`,
          '',
          'Try it in another terminal, after running the export lines above:',
          '  npx payorch doctor',
          '  npx payorch call welcome',
          '  curl -X POST "$PAYORCH_BASE_URL/api/provider/welcome" $(npx payorch sign basic)',
          '',
          c.dim('Stop with Ctrl+C.'),
        ].join('\n'),
      () => ({ url: running.url, credentials: variables, sites, callbackUrls: urls }),
    );
  }

  await stopped;
  return EXIT_OK;
}

export const sandboxCommand: Command = { usage: USAGE, run };
