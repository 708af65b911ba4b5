import { APIError, AuthenticationError, PermissionDeniedError, RequestValidationError } from 'payorch';
import type { AuthFailureReason } from 'payorch';
import { requestHash } from '../../internal/signer.js';
import { assertNever } from '../../internal/assert-never.js';
import type { Api } from '../../core/api.js';
import { isLoopbackHostname } from '../../core/loopback.js';
import { checkBaseUrl } from '../../core/option-checks.js';
import { endpointPath, redactText, secretForms, settingsEndpoint, welcomeEndpoint } from '../cli-internals.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import { DEFAULT_WAIT_MS, WAIT_TIMEOUT, numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, EXIT_FAILED, EXIT_OK, KEY_VARIABLES, colours, emit, fromFlagOrEnv, parse, printable, requireSetting, accountKeys, secretFromOptions, UsageError } from './io.js';
import type { AccountKeys, Command, Io } from './io.js';

const USAGE = `Usage: payorch doctor [options]

Checks what breaks integrations: whether payorch supports the Node running it, then for the
provider account and, when its keys are given, the dealer account: is the service reachable
(and its TLS certificate valid), how far this machine's clock is from the service's (the Date
header; signatures allow 5 minutes), and whether a signed request is accepted, or which refusal
of spec 7.1 came back, with its likely fix. Exits 0 when every check passes, 1 otherwise. Sends
one read-only request per account;
the accounts are checked at the same time, so a host that never answers costs one --timeout.

Options:
  --base-url <url>             the service (default $PAYORCH_BASE_URL)
  --api-key <key>              provider API key (default $PAYORCH_PROVIDER_API_KEY)
  --secret-key-file <path>     read the provider secret key from a file (one trailing newline dropped)
  --secret-key-stdin           read the provider secret key from standard input
  --secret-key <key>           the provider secret key itself: avoid it, other local users (ps) and
                               your shell history can read it; warns on stderr
                               (default $PAYORCH_PROVIDER_SECRET_KEY); never printed
  --dealer-api-key <key>       dealer API key (default $PAYORCH_DEALER_API_KEY)
  --dealer-secret-key-file <path>, --dealer-secret-key-stdin, --dealer-secret-key <key>
                               the dealer secret key, likewise (default $PAYORCH_DEALER_SECRET_KEY)
  --timeout <ms>               for each account's request, body included (${rangeOf(WAIT_TIMEOUT)})
  --json                       print the checks as JSON
  -h, --help                   show this text`;

type Outcome = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of the report: what was checked, how it went, and what to do about it. */
interface Check {
  /** `local`: this machine, not an account. */
  readonly account: Api | 'local';
  readonly name: 'runtime' | 'reachability' | 'tls' | 'clock' | 'authentication';
  readonly outcome: Outcome;
  readonly detail: string;
  readonly fix?: string;
}

// Spec 7.1, each refusal with what usually causes it.
function fixFor(reason: AuthFailureReason, account: Api): string {
  const names = KEY_VARIABLES[account];
  switch (reason) {
    case 'missing_headers':
      return 'a proxy between you and the service drops the X-Api-Key, X-Hash or X-Timestamp header: let them through';
    case 'invalid_api_key':
      return `the API key is not one the service knows: check ${names.apiKey} (test and live keys differ)`;
    case 'timestamp_expired':
      return 'the clock of this machine is more than 5 minutes off: synchronise it (timedatectl set-ntp true), or set the clients\' clockOffsetMs';
    case 'invalid_hash':
      return `the secret key does not belong to the API key: check ${names.secretKey} (no spaces or newline copied with it)`;
    case 'provider_inactive':
      return 'the account is deactivated: ask the service operator to activate it';
    case 'ip_not_allowed':
      return "this machine's public IP is not in the account's whitelist: ask the operator to add it (behind NAT, the egress address counts)";
    case 'credential_key_refused':
      return `the site credential key does not belong to this provider: check ${ENVIRONMENT_NAMES.credentialKey}`;
    case 'unknown':
      return 'the service refused the request with a text the spec does not list: read it above';
    default:
      return assertNever(reason);
  }
}

// Causes of a failed fetch as Node reports them (error.cause.code), with their usual fix.
const CONNECTION_FIXES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing listens there: check the host and port of the base URL',
  ENOTFOUND: 'the host name does not resolve: check the base URL and this machine\'s DNS',
  EAI_AGAIN: 'DNS did not answer: check this machine\'s network and DNS',
  ETIMEDOUT: 'no answer: a firewall may drop the traffic, or the host is down',
  ECONNRESET: 'the connection was cut: a proxy or firewall may interfere',
  UND_ERR_CONNECT_TIMEOUT: 'no answer: a firewall may drop the traffic, or the host is down',
};
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME/;

function causeCode(error: unknown): string | undefined {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && !code.startsWith('ABORT')) return code;
  }
  return undefined;
}

async function checkAccount(account: Api, root: string, keys: AccountKeys, timeoutMs: number): Promise<Check[]> {
  // The cheapest signed call of each API, one that creates nothing, at the URL the clients build.
  const probe = account === 'provider' ? welcomeEndpoint : settingsEndpoint;
  const url = new URL(`${root}${endpointPath({ api: account, endpoint: probe })}`);
  const baseUrl = new URL(root);
  const https = baseUrl.protocol === 'https:';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers = { 'X-Api-Key': keys.apiKey, 'X-Timestamp': timestamp, 'X-Hash': requestHash(keys, { hash: 'basic' }, timestamp), 'Content-Type': 'application/json' };
  const sentAt = Date.now();
  let response: Response;
  try {
    response = await fetch(url, { method: probe.method, headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  } catch (error) {
    const code = causeCode(error);
    const message = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    if (code !== undefined && TLS_CODES.test(code)) {
      return [
        { account, name: 'reachability', outcome: 'ok', detail: `${url.host} answers on TCP` },
        { account, name: 'tls', outcome: 'fail', detail: `${code}: ${message}`, fix: 'the certificate is not trusted for this host: check the host name, the chain the server sends, or NODE_EXTRA_CA_CERTS for a private CA' },
      ];
    }
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return [
      {
        account,
        name: 'reachability',
        outcome: 'fail',
        detail: timedOut ? `no answer from ${url.origin} within ${timeoutMs} ms` : `${url.origin}: ${code ?? ''} ${message}`.trim(),
        fix: timedOut ? (CONNECTION_FIXES['ETIMEDOUT'] ?? '') : (CONNECTION_FIXES[code ?? ''] ?? 'check the base URL and the network path to it'),
      },
    ];
  }
  const receivedAt = Date.now();
  const checks: Check[] = [
    { account, name: 'reachability', outcome: 'ok', detail: `${url.origin} answered HTTP ${response.status} in ${receivedAt - sentAt} ms` },
    https
      ? { account, name: 'tls', outcome: 'ok', detail: 'https, certificate trusted' }
      : isLoopbackHostname(baseUrl.hostname)
        ? { account, name: 'tls', outcome: 'skip', detail: 'plain http on loopback (a local sandbox)' }
        : { account, name: 'tls', outcome: 'warn', detail: 'plain http', fix: 'use the https address: the hash does not cover the body, so anyone on the path could change an amount' },
  ];
  checks.push(clockCheck(account, response.headers.get('date'), sentAt, receivedAt));

  const body = await response.text();
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body) as unknown;
  } catch {
    // Not JSON: APIError.generate describes it as such.
  }
  const succeeded = response.ok && typeof parsed === 'object' && parsed !== null && (parsed as { success?: unknown }).success !== false;
  // A service that echoes what it was sent must not have the secret key or the hash printed.
  const secrets = [keys.secretKey, headers['X-Hash']];
  if (succeeded) {
    checks.push({ account, name: 'authentication', outcome: 'ok', detail: `signed request accepted${redactText(greeting(parsed), secretForms(secrets))}` });
    return checks;
  }
  // Its probes (welcome, dealer settings) only read: its failure never says a payment may have been created.
  const error = APIError.generate({ status: response.status, headers: {}, body: parsed, request: { method: account === 'provider' ? 'POST' : 'GET', url: url.href }, call: { operation: probe.operation, resendable: true }, redact: secrets });
  const reason = error instanceof AuthenticationError || error instanceof PermissionDeniedError ? error.reason : undefined;
  checks.push({
    account,
    name: 'authentication',
    outcome: 'fail',
    detail: `${error.name}${reason === undefined ? '' : ` (${reason})`}: ${error.message}`,
    fix: reason === undefined ? 'the service answered with a failure that is not an authentication refusal: read it above' : fixFor(reason, account),
  });
  return checks;
}

function greeting(body: unknown): string {
  const record = body as { message?: unknown; dealer_name?: unknown };
  const text = typeof record.message === 'string' ? record.message : typeof record.dealer_name === 'string' ? record.dealer_name : undefined;
  return text === undefined ? '' : `: ${text}`;
}

// Date has whole seconds: an offset within the round trip plus one second is no offset at all.
function clockCheck(account: Api, date: string | null, sentAt: number, receivedAt: number): Check {
  const serverMs = date === null ? Number.NaN : Date.parse(date);
  if (Number.isNaN(serverMs)) return { account, name: 'clock', outcome: 'skip', detail: 'the answer has no Date header to compare with' };
  const localMs = (sentAt + receivedAt) / 2;
  const offsetS = Math.round((serverMs - localMs) / 1000);
  const slack = Math.ceil((receivedAt - sentAt) / 1000) + 1;
  const detail = Math.abs(offsetS) <= slack ? 'in step with the service (within the Date header\'s 1 s resolution)' : `this machine is ${Math.abs(offsetS)} s ${offsetS > 0 ? 'behind' : 'ahead of'} the service`;
  if (Math.abs(offsetS) > 300) return { account, name: 'clock', outcome: 'fail', detail, fix: 'signatures allow 5 minutes: synchronise the clock (timedatectl set-ntp true), or set clockOffsetMs' };
  if (Math.abs(offsetS) > 60) return { account, name: 'clock', outcome: 'warn', detail, fix: 'synchronise the clock before it drifts past the 5 minutes signatures allow' };
  return { account, name: 'clock', outcome: 'ok', detail };
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    ...COMMON_OPTIONS,
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    'secret-key': { type: 'string' },
    'secret-key-file': { type: 'string' },
    'secret-key-stdin': { type: 'boolean', default: false },
    'dealer-api-key': { type: 'string' },
    'dealer-secret-key': { type: 'string' },
    'dealer-secret-key-file': { type: 'string' },
    'dealer-secret-key-stdin': { type: 'boolean', default: false },
    timeout: { type: 'string' },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  const base = requireSetting(values['base-url'], io, '--base-url', ENVIRONMENT_NAMES.baseUrl);
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    return report(io, values.json, [{ account: 'provider', name: 'reachability', outcome: 'fail', detail: `not an http(s) URL: ${base}`, fix: `set ${ENVIRONMENT_NAMES.baseUrl} to the service address, for example https://pay.example.com` }]);
  }
  let root: string;
  try {
    // Plain http is doctor's warning to give, not a refusal.
    root = checkBaseUrl('payorch doctor', base, true);
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    const problem = error.issues[0]?.message ?? error.message;
    const root = /; use (\S+)$/.exec(problem)?.[1];
    const fix = root === undefined ? 'the service address, for example https://pay.example.com' : root;
    return report(io, values.json, [{ account: 'provider', name: 'reachability', outcome: 'fail', detail: `the base URL ${problem}`, fix: `set ${ENVIRONMENT_NAMES.baseUrl} (or --base-url) to ${fix}` }]);
  }
  const timeoutMs = numberFlag(values.timeout, '--timeout', WAIT_TIMEOUT) ?? DEFAULT_WAIT_MS;
  if (values['secret-key-stdin'] && values['dealer-secret-key-stdin']) throw new UsageError('standard input carries one secret key: use --dealer-secret-key-file for the other');
  const provider = await accountKeys(values, io, 'provider');
  const dealerApiKey = fromFlagOrEnv(values['dealer-api-key'], io, KEY_VARIABLES.dealer.apiKey);
  const dealerSecretKey = await secretFromOptions(values, io, 'dealer-secret-key', KEY_VARIABLES.dealer.secretKey);
  // Both accounts at once, each bounded by --timeout: a host that never answers costs one
  // timeout, not one per account. The report keeps the provider first.
  const accounts = await Promise.all([
    checkAccount('provider', root, provider, timeoutMs),
    dealerApiKey !== undefined && dealerSecretKey !== undefined
      ? checkAccount('dealer', root, { apiKey: dealerApiKey, secretKey: dealerSecretKey }, timeoutMs)
      : [{ account: 'dealer', name: 'authentication', outcome: 'skip', detail: `no dealer keys given (${KEY_VARIABLES.dealer.apiKey}, ${KEY_VARIABLES.dealer.secretKey})` } satisfies Check],
  ]);
  return report(io, values.json, accounts.flat());
}

function report(io: Io, json: boolean, accountChecks: readonly Check[]): number {
  const runtime: readonly Check[] =
    io.unsupportedRuntime === undefined ? [] : [{ account: 'local', name: 'runtime', outcome: 'fail', detail: io.unsupportedRuntime.problem, fix: io.unsupportedRuntime.fix }];
  const checks = [...runtime, ...accountChecks];
  const c = colours(io.stdout, io.env);
  const mark: Record<Outcome, string> = { ok: c.green('ok  '), warn: c.yellow('warn'), fail: c.red('FAIL'), skip: c.dim('skip') };
  const failed = checks.some((check) => check.outcome === 'fail');
  emit(
    io,
    json,
    () =>
      [
        ...checks.flatMap((check) => [`${mark[check.outcome]}  ${check.account.padEnd(8)} ${check.name.padEnd(14)} ${printable(check.detail)}`, ...(check.fix === undefined ? [] : [`      ${c.dim('fix:')} ${check.fix}`])]),
        failed ? c.red('Some checks failed.') : c.green('All checks passed.'),
      ].join('\n'),
    () => ({ ok: !failed, checks }),
  );
  return failed ? EXIT_FAILED : EXIT_OK;
}

export const doctorCommand: Command = { usage: USAGE, run };
