import type { CallOutcome } from '../index.js';
import { APIError, AuthenticationError, DealerClient, PayorchError, PermissionDeniedError, ProviderClient, RequestValidationError, ResponseValidationError } from '../index.js';
import { API_ENDPOINTS, fullPath } from '../endpoints.js';
import type { ApiEndpoint } from '../endpoints.js';
import { COMMON_OPTIONS, CREDENTIAL_OPTIONS, EXIT_FAILED, EXIT_OK, UsageError, accountKeys, colours, emit, fromFlagOrEnv, integerFlag, parse, readInput, requireSetting, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';

/** The name a user types: the SDK's operation name, prefixed with its API where two APIs share it. */
const qualified = ({ api, endpoint }: ApiEndpoint): string => `${api}.${endpoint.operation}`;

const OPERATIONS = API_ENDPOINTS.map((row) => `  ${qualified(row).padEnd(40)} ${row.endpoint.method.padEnd(5)}${fullPath(row)}`).join('\n');

const USAGE = `Usage: payorch call <operation> [--data <json|@file|@->] [options]

Runs an SDK operation by its public name, signed with your keys, and prints the answer. A
failure prints the error's class, HTTP status, reason and the fields at fault; exit 1.
The API prefix (provider., dealer.) may be left out where the name is unique.

Operations:
${OPERATIONS}

Options:
  --data <json|@file|@->   the operation's parameters as JSON; @file reads a file, @- standard input
  --base-url <url>         the service (default $PAYORCH_BASE_URL)
  --api-key <key>          API key (default $PAYORCH_PROVIDER_API_KEY or $PAYORCH_DEALER_API_KEY)
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY or $PAYORCH_DEALER_SECRET_KEY')}
  --credential-key <c>     site credential key (default $PAYORCH_CREDENTIAL_KEY)
  --timeout <ms>           for the whole call (default 30000)
  --allow-insecure-http    allow a plain-http base URL that is not loopback (a trusted network only)
  --json                   print the answer, or the error, as JSON
  -h, --help               show this text

Examples:
  payorch call welcome
  payorch call manual.startDeposit --data '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}'
  payorch call listSites                      (X-Key from $PAYORCH_SITES_KEY, or --data '{"key":"…"}')
  payorch call transactions.list --data @range.json`;

function find(name: string): ApiEndpoint {
  const exact = API_ENDPOINTS.find((row) => qualified(row) === name);
  if (exact !== undefined) return exact;
  const bare = API_ENDPOINTS.filter((row) => row.endpoint.operation === name);
  const [only, ...others] = bare;
  if (only !== undefined && others.length === 0) return only;
  if (only !== undefined) throw new UsageError(`${name} is an operation of both APIs: write ${bare.map(qualified).join(' or ')}`);
  throw new UsageError(`unknown operation ${JSON.stringify(name)}; payorch call --help lists them`);
}

async function readData(data: string | undefined, io: Io): Promise<unknown> {
  if (data === undefined) return undefined;
  const text = data.startsWith('@') ? await readInput(data.slice(1), io) : data;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--data is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

type Method = (...args: unknown[]) => Promise<unknown>;

/** The client's method of that operation name: `manual.startDeposit` is `client.manual.startDeposit`. */
function methodOf(client: object, operation: string): { target: object; method: Method } {
  let target: object = client;
  const names = operation.split('.');
  const last = names.pop() ?? '';
  for (const name of names) {
    const next: unknown = Reflect.get(target, name);
    if (typeof next !== 'object' || next === null) throw new Error(`The client has no ${operation}`);
    target = next;
  }
  const method: unknown = Reflect.get(target, last);
  if (typeof method !== 'function') throw new Error(`The client has no ${operation}`);
  return { target, method: method as Method };
}

/** What a failure says, for a person and for a machine. Messages are already redacted by the SDK. */
/** What each outcome means to the person at the terminal. */
const OUTCOMES: Readonly<Record<CallOutcome, string>> = {
  not_sent: 'not_sent (nothing reached the service: safe to run again)',
  refused: 'refused (the service refused it: nothing was created)',
  unknown: 'unknown (it may have been processed: do not run a payment again; wait for its callback or read its status)',
};

function describeError(error: PayorchError): Record<string, unknown> {
  return {
    class: error.name,
    message: error.message,
    outcome: error.outcome,
    ...(error instanceof APIError ? { status: error.status, error: error.error, code: error.code, messages: error.messages, body: error.body } : {}),
    ...(error instanceof AuthenticationError || error instanceof PermissionDeniedError ? { reason: error.reason } : {}),
    ...(error instanceof RequestValidationError || error instanceof ResponseValidationError ? { fields: error.issues } : {}),
  };
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...COMMON_OPTIONS, ...CREDENTIAL_OPTIONS, data: { type: 'string' }, 'base-url': { type: 'string' }, 'credential-key': { type: 'string' }, timeout: { type: 'string' }, 'allow-insecure-http': { type: 'boolean', default: false } },
    true,
  );
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError('name the operation, for example payorch call welcome (payorch call --help lists them)');
  if (extra.length > 0) throw new UsageError(`one operation at a time: ${positionals.join(' ')}`);
  const row = find(name);
  const { api, endpoint } = row;
  if (values['secret-key-stdin'] && values.data === '@-') throw new UsageError('standard input cannot carry both --data @- and --secret-key-stdin: use --secret-key-file');
  const data = await readData(values.data, io);
  const noParams = endpoint.params.safeParse(undefined).success && endpoint.hash !== 'key';
  if (noParams && data !== undefined) throw new UsageError(`${qualified(row)} takes no parameters: leave out --data`);

  const baseUrl = requireSetting(values['base-url'], io, '--base-url', 'PAYORCH_BASE_URL');
  const keys = await accountKeys(values, io, api);
  const timeout = integerFlag(values.timeout, '--timeout', 1, 600_000);
  const settings = { baseUrl, ...keys, ...(timeout === undefined ? {} : { timeout }), allowInsecureHttp: values['allow-insecure-http'] };
  const credentialKey = fromFlagOrEnv(values['credential-key'], io, 'PAYORCH_CREDENTIAL_KEY');
  let client: ProviderClient | DealerClient;
  try {
    client = api === 'provider' ? new ProviderClient({ ...settings, credentialKey }) : new DealerClient(settings);
  } catch (error) {
    // The client refuses its settings (a plain-http base URL that is not loopback): the command line is wrong.
    if (error instanceof PayorchError) throw new UsageError(error.message);
    throw error;
  }
  // listSites carries its X-Key as a parameter although the endpoint has no body (spec 4.4).
  const params = endpoint.hash === 'key' ? (data ?? { key: requireSetting(undefined, io, '--data {"key":…}', 'PAYORCH_SITES_KEY') }) : data;

  const { target, method } = methodOf(client, endpoint.operation);
  const c = colours(io.stdout, io.env);
  try {
    const answer = await (noParams ? method.call(target) : method.call(target, params));
    emit(io, values.json, () => `${c.green('ok')} ${endpoint.method} ${fullPath(row)}\n${JSON.stringify(answer, null, 2)}`, () => answer);
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof PayorchError)) throw error;
    const described = describeError(error);
    emit(
      io,
      values.json,
      () =>
        [
          `${c.red(error.name)} ${error.message}`,
          `outcome  ${OUTCOMES[error.outcome]}`,
          ...(error instanceof APIError ? [`status   ${error.status}`] : []),
          ...(error instanceof APIError && error.code !== undefined ? [`code     ${error.code}`] : []),
          ...(error instanceof AuthenticationError || error instanceof PermissionDeniedError ? [`reason   ${error.reason}`] : []),
          ...(error instanceof APIError && error.messages !== undefined ? error.messages.map((message) => `  ${message}`) : []),
          ...(error instanceof RequestValidationError || error instanceof ResponseValidationError
            ? error.issues.map((issue) => `  ${issue.field || '(body)'}: ${issue.message}`)
            : []),
        ].join('\n'),
      () => ({ error: described }),
    );
    return EXIT_FAILED;
  }
}

export const callCommand: Command = { usage: USAGE, run };
