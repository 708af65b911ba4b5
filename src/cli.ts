#!/usr/bin/env node
// The `payorch` command. `payorch sandbox` serves a sandbox on loopback and prints how to reach it.
import { parseArgs } from 'node:util';
import { CALLBACK_KINDS, isCallbackKind } from './callbacks/kinds.js';
import { createSandbox } from './sandbox/index.js';
import type { CallbackUrls } from './sandbox/index.js';
import { exampleEnvironment } from './sandbox/env.js';

const USAGE = `Usage: payorch sandbox [options]

Serves a local Payment Orchestration Service (Provider and Dealer APIs) over HTTP.

Options:
  --port <n>             TCP port; 0 picks a free one (default 4010)
  --host <address>       interface to listen on (default 127.0.0.1)
  --seed <text>          seed of the generated keys, ids and history (default payorch)
  --callback <kind=url>  where callbacks go, repeated for several kinds; kind is one of
                         ${CALLBACK_KINDS.join(', ')}
  --help                 show this text`;

function callbackUrls(entries: readonly string[]): CallbackUrls {
  const urls: Record<string, string> = {};
  for (const entry of entries) {
    const [kind = '', url = ''] = entry.split(/=(.*)/s);
    if (!isCallbackKind(kind) || !URL.canParse(url)) {
      throw new Error(`--callback takes kind=url with kind one of ${CALLBACK_KINDS.join(', ')}: ${entry}`);
    }
    urls[kind] = url;
  }
  return urls;
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command !== 'sandbox') throw new Error(`Unknown command ${command}\n\n${USAGE}`);
  const { values } = parseArgs({
    args: rest,
    options: {
      port: { type: 'string', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      seed: { type: 'string' },
      callback: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be a port number: ${values.port}`);

  const sandbox = createSandbox({ seed: values.seed, callbackUrls: callbackUrls(values.callback) });
  const running = await sandbox.listen({ port, host: values.host });
  const environment = exampleEnvironment(running.url, sandbox.accounts);
  const { sites } = sandbox.accounts.provider;
  console.log(
    [
      `payorch sandbox listening on ${running.url}`,
      '',
      'Credentials, under the names the examples read (export these lines to use them):',
      ...Object.entries(environment).map(([name, value]) => `${name}=${value}`),
      '',
      'Sites (id, name, credential key):',
      ...sites.map((site) => `  ${site.id}  ${site.name}  ${site.credentialKey}`),
      '',
      `Controls: GET ${running.url}/__sandbox lists them (settle, deliveries, clock, callback URLs).`,
      '',
      'A request signed by hand (spec 5.1, basic hash):',
      `  TS=$(date +%s); HASH=$(printf '%s' "${environment['PAYORCH_PROVIDER_API_KEY'] ?? ''}${environment['PAYORCH_PROVIDER_SECRET_KEY'] ?? ''}$TS" | sha256sum | cut -d' ' -f1)`,
      `  curl -X POST ${running.url}/api/provider/welcome -H "X-Api-Key: ${environment['PAYORCH_PROVIDER_API_KEY'] ?? ''}" -H "X-Hash: $HASH" -H "X-Timestamp: $TS" -H 'Content-Type: application/json'`,
      '',
      'Stop with Ctrl+C.',
    ].join('\n'),
  );

  const stop = () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
