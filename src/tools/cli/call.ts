import type * as z from 'zod/mini';
import { APIError, AuthenticationError, DealerClient, PayorchError, PermissionDeniedError, ProviderClient, RequestValidationError, ResponseValidationError } from 'payorch';
import type { ValidationIssue } from 'payorch';
import { TransactionRangeParams } from 'payorch/schemas';
import type { Endpoint } from '../../internal/endpoint.js';
import type { APIPromise } from '../../core/api-promise.js';
import type { Api } from '../../core/api.js';
import { REQUEST_OPTIONS } from '../../core/option-checks.js';
import { API_ENDPOINTS, endpointPath } from '../cli-internals.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import { declared, numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, CREDENTIAL_OPTIONS, EXIT_FAILED, EXIT_OK, UsageError, accountKeys, colours, fromFlagOrEnv, inFlags, parse, printable, readInput, requireSetting, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';
import { closest } from './suggest.js';

// The SDK's own option: the flag takes what a client's `timeout` takes, with its default.
const TIMEOUT = declared(REQUEST_OPTIONS, 'timeout');

/** An operation `call` runs: an endpoint row, or `transactions.iterate`, which reads every page of the list endpoint. */
interface Operation {
  readonly api: Api;
  readonly endpoint: Endpoint<z.ZodMiniType, z.ZodMiniType>;
  /** The client method's name, `manual.startDeposit`. */
  readonly operation: string;
  /** What --data must be. */
  readonly params: z.ZodMiniType;
  readonly iterate: boolean;
}

const ROWS: readonly Operation[] = API_ENDPOINTS.map(({ api, endpoint }) => ({ api, endpoint, operation: endpoint.operation, params: endpoint.params, iterate: false }));
const LIST = ROWS.find((row) => row.api === 'dealer' && row.operation === 'transactions.list');
const OPERATIONS: readonly Operation[] = LIST === undefined ? ROWS : [...ROWS, { ...LIST, operation: 'transactions.iterate', params: TransactionRangeParams, iterate: true }];

/** The name a user types: the SDK's operation name, prefixed with its API where two APIs share it. */
const qualified = ({ api, operation }: Operation): string => `${api}.${operation}`;

const LISTED = OPERATIONS.map((row) => `  ${qualified(row).padEnd(40)} ${row.endpoint.method.padEnd(5)}${endpointPath(row)}${row.iterate ? ' (every page of any range)' : ''}`).join('\n');

const USAGE = `Usage: payorch call <operation> [--data <json|@file|@->] [options]

Runs an SDK operation by its public name, signed with your keys, and prints the answer as JSON
on stdout, and nothing else there: pipe it to jq as it is. The status line (ok POST …) goes to
stderr. A failure prints the error's class, HTTP status, reason and the fields at fault on
stderr (on stdout as JSON with --json); exit 1.
The API prefix (provider., dealer.) may be left out where the name is unique.
payorch call <operation> --help lists the fields of that operation.

Operations:
${LISTED}

Options:
  --data <json|@file|@->   the operation's parameters as JSON; @file reads a file, @- standard input
  --base-url <url>         the service (default $PAYORCH_BASE_URL)
  --api-key <key>          API key (default $PAYORCH_PROVIDER_API_KEY or $PAYORCH_DEALER_API_KEY)
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY or $PAYORCH_DEALER_SECRET_KEY')}
  --credential-key <c>     site credential key (default $PAYORCH_CREDENTIAL_KEY)
  --timeout <ms>           for the whole call (${rangeOf(TIMEOUT)})
  --allow-insecure-http    allow a plain-http base URL that is not loopback (a trusted network only)
  --json                   no status lines; a failure as JSON on stdout; transactions.iterate as
                           one JSON array instead of one JSON line per record
  -h, --help               show this text

Examples:
  payorch call welcome
  payorch call manual.startDeposit --data '{"fullname":"Ada Yılmaz","username":"ada","user_id":"u-1","amount":250}'
  payorch call sites.list                     (X-Key from $PAYORCH_SITES_KEY, or --data '{"key":"…"}')
  payorch call transactions.iterate --data '{"wallet_id":"…","start_date":"2026-03-01","end_date":"2026-03-31"}'`;

/** What the schema cannot say about a field, where the CLI has more to say than the type and limits. */
const NOTES: Readonly<Record<string, string>> = {
  'dealer.transactions.list': 'end_date is at most 3 days after start_date (the service\'s limit); payorch call transactions.iterate reads any range, page by page.',
  'dealer.transactions.iterate': 'Any range: it is read in windows of 3 days, each page by page, and every record is printed.',
};

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly description?: string;
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum !== undefined) return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf !== undefined) return schema.anyOf.map(typeOf).join(' or ');
  if (schema.format === 'date') return 'date (YYYY-MM-DD)';
  return Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type as string | undefined) ?? 'any JSON value';
}

/** The limits of a field, in the words of the SDK's own messages. */
function limitsOf(schema: JsonSchema): string[] {
  const limits: string[] = [];
  if (schema.pattern === '\\S') limits.push('not blank');
  const { minLength, maxLength } = schema;
  if (minLength !== undefined && maxLength !== undefined) limits.push(minLength === maxLength ? `${minLength} characters` : `${minLength} to ${maxLength} characters`);
  else if (minLength !== undefined && minLength > 0) limits.push(`at least ${minLength} characters`);
  else if (maxLength !== undefined) limits.push(`at most ${maxLength} characters`);
  const integer = schema.type === 'integer';
  if (schema.minimum !== undefined) limits.push(`at least ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) limits.push(integer ? `at least ${Math.floor(schema.exclusiveMinimum) + 1}` : `above ${schema.exclusiveMinimum}`);
  // zod writes the safe-integer bound on every integer: not a limit a user needs to read.
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) limits.push(`at most ${schema.maximum}`);
  if (schema.exclusiveMaximum !== undefined) limits.push(`below ${schema.exclusiveMaximum}`);
  return limits;
}

/** The fields of --data, from the operation's request schema (the one the SDK validates with). */
async function fieldsOf(operation: Operation): Promise<string[]> {
  if (operation.endpoint.hash === 'key') {
    return ['  key'.padEnd(20) + 'string, required, the X-Key of the site list (default $PAYORCH_SITES_KEY)'];
  }
  if (operation.params.safeParse(undefined).success) return [];
  // zod's own copy (the library bundles the one its schemas are built with) costs more start-up
  // than the rest of the command: only the help of one operation loads it.
  const { toJSONSchema } = await import('zod/mini');
  const schema = toJSONSchema(operation.params, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {});
  const width = Math.max(18, ...entries.map(([name]) => name.length + 2));
  return entries.map(([name, field]) => {
    // The CLI fills the site's credential key the way the client does: from --credential-key.
    const need = name === 'credential_key' ? 'required (default --credential-key or $PAYORCH_CREDENTIAL_KEY)' : required.has(name) ? 'required' : 'optional';
    const text = [typeOf(field), need, ...limitsOf(field)].join(', ');
    return `  ${name.padEnd(width)}${text}${field.description === undefined ? '' : `: ${field.description}`}`;
  });
}

async function operationUsage(operation: Operation): Promise<string> {
  const name = qualified(operation);
  const fields = await fieldsOf(operation);
  const note = NOTES[name];
  return [
    `Usage: payorch call ${name}${fields.length === 0 ? '' : ' --data <json|@file|@->'} [options]`,
    '',
    `${operation.endpoint.method} ${endpointPath(operation)}, signed with the ${operation.endpoint.hash} hash (spec 5.1).`,
    '',
    ...(fields.length === 0 ? ['It takes no parameters: leave out --data.'] : ['Fields of --data (a JSON object; no other field is accepted):', ...fields]),
    ...(note === undefined ? [] : ['', note]),
    '',
    'Options (--base-url, --api-key, --secret-key, --json, ...): payorch call --help.',
  ].join('\n');
}

function find(name: string): Operation {
  const exact = OPERATIONS.find((row) => qualified(row) === name);
  if (exact !== undefined) return exact;
  const bare = OPERATIONS.filter((row) => row.operation === name);
  const [only, ...others] = bare;
  if (only !== undefined && others.length === 0) return only;
  if (only !== undefined) throw new UsageError(`${name} is an operation of both APIs: write ${bare.map(qualified).join(' or ')}`);
  // Suggest the shortest name that works: the bare one where it is unique.
  const unique = (row: Operation) => OPERATIONS.filter((other) => other.operation === row.operation).length === 1;
  const candidates = OPERATIONS.flatMap((row) => (unique(row) ? [row.operation, qualified(row)] : [qualified(row)]));
  const match = closest(name, candidates);
  throw new UsageError(`unknown operation ${JSON.stringify(name)}${match === undefined ? '' : `; did you mean ${match}?`} (payorch call --help lists them)`);
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

type Method = (...args: unknown[]) => APIPromise<unknown>;

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

/** The value at a dotted field path of the data, or undefined. */
function valueAt(data: unknown, field: string): unknown {
  let value = data;
  for (const name of field.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Reflect.get(value, name);
  }
  return value;
}

/**
 * The SDK's issues as a command line reads them: a field left out "is required" (zod says it
 * expected a type and received undefined), and the list endpoint's limit points at the command
 * that reads any range rather than at the SDK method.
 */
function readable(issues: readonly ValidationIssue[], data: unknown): ValidationIssue[] {
  return issues.map((issue) => {
    if (issue.rule === 'invalid_type' && issue.field !== '' && valueAt(data, issue.field) === undefined) return { ...issue, message: 'is required' };
    // The SDK's advice (set it on the client, withSite) has no meaning here: the flag does.
    if (issue.field === 'credentialKey') return { ...issue, field: '--credential-key', message: `is required for this operation (or set ${ENVIRONMENT_NAMES.credentialKey})` };
    return { ...issue, message: issue.message.replace('iterate() takes any range', 'payorch call transactions.iterate reads any range') };
  });
}

/** What a failure says, for a person and for a machine. Messages are already redacted by the SDK. */
function describeError(error: PayorchError, operation: string, data: unknown): { described: Record<string, unknown>; lines: (paint: (text: string) => string) => string[] } {
  const refused = error instanceof RequestValidationError;
  const fields = refused ? readable(error.issues, data) : error instanceof ResponseValidationError ? error.issues : [];
  // A refused request lists its fields once, below a heading, rather than in the heading and again below.
  const message = refused ? `Invalid request to ${operation}: nothing was sent` : error.message;
  const described = {
    class: error.name,
    outcome: error.outcome,
    message: refused ? `Invalid request to ${operation}: ${fields.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ')}` : error.message,
    ...(error instanceof APIError ? { status: error.status, error: error.error, code: error.code, messages: error.messages, body: error.body } : {}),
    ...(error instanceof AuthenticationError || error instanceof PermissionDeniedError ? { reason: error.reason } : {}),
    ...(refused || error instanceof ResponseValidationError ? { fields } : {}),
  };
  // The service's text is escaped: it cannot add lines of its own.
  const lines = (paint: (text: string) => string) => [
    `${paint(error.name)} ${printable(message)}`,
    // The message already says what the outcome means for money (the SDK's one sentence).
    `outcome  ${error.outcome}`,
    ...(error instanceof APIError ? [`status   ${error.status}`] : []),
    ...(error instanceof APIError && error.code !== undefined ? [`code     ${printable(error.code)}`] : []),
    ...(error instanceof AuthenticationError || error instanceof PermissionDeniedError ? [`reason   ${error.reason}`] : []),
    ...(error instanceof APIError && error.messages !== undefined ? error.messages.map((text) => `  ${printable(text)}`) : []),
    ...fields.map((issue) => `  ${printable(issue.field || '(body)')}: ${printable(issue.message)}`),
  ];
  return { described, lines };
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    { ...COMMON_OPTIONS, ...CREDENTIAL_OPTIONS, data: { type: 'string' }, 'base-url': { type: 'string' }, 'credential-key': { type: 'string' }, timeout: { type: 'string' }, 'allow-insecure-http': { type: 'boolean', default: false } },
    true,
  );
  const [name, ...extra] = positionals;
  if (values.help) {
    io.stdout.write(`${name === undefined ? USAGE : await operationUsage(find(name))}\n`);
    return EXIT_OK;
  }
  if (name === undefined) throw new UsageError('name the operation, for example payorch call welcome (payorch call --help lists them)');
  if (extra.length > 0) throw new UsageError(`one operation at a time, and --data's JSON as one argument (in quotes): ${positionals.join(' ')}`);
  const row = find(name);
  const { api, endpoint } = row;
  if (values['secret-key-stdin'] && values.data === '@-') throw new UsageError('standard input cannot carry both --data @- and --secret-key-stdin: use --secret-key-file');
  const data = await readData(values.data, io);
  const noParams = row.params.safeParse(undefined).success && endpoint.hash !== 'key';
  if (noParams && data !== undefined) throw new UsageError(`${qualified(row)} takes no parameters: leave out --data`);

  const baseUrl = requireSetting(values['base-url'], io, '--base-url', ENVIRONMENT_NAMES.baseUrl);
  const keys = await accountKeys(values, io, api);
  const timeout = numberFlag(values.timeout, '--timeout', TIMEOUT);
  // The command prints each failure itself: the SDK's own log lines only when PAYORCH_LOG asks for them.
  const logLevel: 'off' | undefined = io.env['PAYORCH_LOG'] === undefined ? 'off' : undefined;
  const settings = { baseUrl, ...keys, ...(timeout === undefined ? {} : { timeout }), allowInsecureHttp: values['allow-insecure-http'], logLevel };
  const credentialKey = fromFlagOrEnv(values['credential-key'], io, ENVIRONMENT_NAMES.credentialKey);
  let client: ProviderClient | DealerClient;
  try {
    client = api === 'provider' ? new ProviderClient({ ...settings, credentialKey }) : new DealerClient(settings);
  } catch (error) {
    // The client refuses its settings (a plain-http base URL that is not loopback): the command line is wrong.
    if (error instanceof PayorchError) throw new UsageError(inFlags(error.message));
    throw error;
  }
  // sites.list carries its X-Key as a parameter although the endpoint has no body (spec 4.4). Other
  // operations get an empty object when --data is left out, so that each missing field is named.
  const params = endpoint.hash === 'key' ? (data ?? { key: requireSetting(undefined, io, '--data {"key":…}', ENVIRONMENT_NAMES.sitesKey) }) : (data ?? {});

  const { target, method } = methodOf(client, row.operation);
  // stdout carries the answer alone, so that `payorch call … | jq` reads JSON; what a person
  // reads beside it (the status line, a count, a failure) goes to stderr.
  const c = colours(io.stderr, io.env);
  const status = (line: string): void => {
    if (!values.json) io.stderr.write(`${line}\n`);
  };
  const printed: unknown[] = [];
  try {
    if (row.iterate) {
      // Each record as it arrives, one JSON line each; --json collects them into one array.
      const records = method.call(target, params) as unknown as AsyncIterable<unknown>;
      status(`${c.green('ok')} ${endpoint.method} ${endpointPath(row)}, every page`);
      for await (const record of records) {
        printed.push(record);
        if (!values.json) io.stdout.write(`${JSON.stringify(record)}\n`);
      }
      if (values.json) io.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
      status(c.dim(`${printed.length} record${printed.length === 1 ? '' : 's'}`));
      return EXIT_OK;
    }
    const { response } = await (noParams ? method.call(target) : method.call(target, params)).withResponse();
    status(`${c.green('ok')} ${endpoint.method} ${endpointPath(row)}`);
    // The answer as the service sent it (payorch checked it is JSON), with any echo of a secret key,
    // credential key, X-Key or hash the call sent redacted.
    io.stdout.write(`${JSON.stringify(JSON.parse(await response.text()) as unknown, null, 2)}\n`);
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof PayorchError)) throw error;
    const { described, lines } = describeError(error, row.operation, params);
    // An iteration that failed part-way keeps the records it read in its JSON.
    if (values.json) io.stdout.write(`${JSON.stringify(row.iterate && printed.length > 0 ? { error: described, records: printed } : { error: described }, null, 2)}\n`);
    else io.stderr.write(`${lines(c.red).join('\n')}\n`);
    return EXIT_FAILED;
  }
}

export const callCommand: Command = { usage: USAGE, run };
