import { DEFAULT_CALLBACK_MAX_AGE_SECONDS } from '../../core/callback-age.js';
import { CONTROL_PREFIX, ROTATE_KEYS_OPTIONS } from '../cli-internals.js';
import { ENVIRONMENT_NAMES } from './environment.js';
import { declared, numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, EXIT_OK, KEY_VARIABLES, OperationError, UsageError, emit, parse, requireSetting } from './io.js';
import type { Io } from './io.js';

/*
 * `payorch sandbox rotate-keys`: rotates an account's keys on a running sandbox through its
 * control route, so that a key rotation can be rehearsed end to end (docs/rotating-keys.md). A client of the sandbox's own controls: it signs nothing.
 */

const WINDOW = declared(ROTATE_KEYS_OPTIONS, 'windowSeconds');
/** A control answers at once; a sandbox that does not is not one. */
const TIMEOUT_MS = 10_000;

export const ROTATE_USAGE = `Usage: payorch sandbox rotate-keys --account <provider|dealer> --window <seconds> [options]

Rotates the keys of an account of a running payorch sandbox, as the service's panel would: a new
secret key and a new API key. Requests signed with the keys before stay valid for --window
seconds; callbacks are signed with the new keys from now on. Rehearse a rotation with it:
docs/rotating-keys.md.

Options:
  --account <name>        provider or dealer
  --window <seconds>      how long the keys before stay valid (${rangeOf(WINDOW)})
  --keep-api-key          rotate the secret key only
  --sandbox-url <url>     the running sandbox, as payorch sandbox printed it
                          (default $PAYORCH_BASE_URL)
  --env                   print only the new keys, as sh export lines (eval them)
  --json                  print the new keys and the ones before as one JSON object, with
                          requestsUntil (the window) and receiversUntil (4 days on)
  -h, --help              show this text

Examples:
  payorch sandbox rotate-keys --account provider --window 3600
  eval "$(payorch sandbox rotate-keys --account dealer --window 600 --env)"`;

/** The answer of `POST /__sandbox/rotate-keys`. */
interface Rotated {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly previous: { readonly apiKey: string; readonly secretKey: string; readonly until: string };
}

function isRotated(value: unknown): value is Rotated {
  const answer = value as Partial<Record<keyof Rotated, unknown>> | null;
  const previous = answer?.previous as Partial<Record<keyof Rotated['previous'], unknown>> | null | undefined;
  return typeof answer?.apiKey === 'string' && typeof answer.secretKey === 'string' && typeof previous?.secretKey === 'string' && typeof previous.until === 'string';
}

/**
 * The receivers' `until` for the secret key before: what was signed with it can come back for
 * `maxAgeSeconds` (3 days) of the service's redeliveries, and a day more covers the engines' retry
 * schedules and a dead-letter replay (docs/rotating-keys.md, "Choose until"). The panel's window is
 * for requests only: a receiver given it refuses old-signature redeliveries once it ends.
 */
const RECEIVER_MARGIN_SECONDS = 86_400;
export function receiverUntil(rotatedAt: number, requestsUntil: string): string {
  const after = rotatedAt + (DEFAULT_CALLBACK_MAX_AGE_SECONDS + RECEIVER_MARGIN_SECONDS) * 1000;
  return new Date(Math.max(after, Date.parse(requestsUntil))).toISOString();
}

/** Single quotes for a shell, so that any value survives `eval`. */
const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

export async function rotateKeys(args: readonly string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    ...COMMON_OPTIONS,
    account: { type: 'string' },
    window: { type: 'string' },
    'keep-api-key': { type: 'boolean', default: false },
    'sandbox-url': { type: 'string' },
    env: { type: 'boolean', default: false },
  });
  if (values.help) {
    io.stdout.write(`${ROTATE_USAGE}\n`);
    return EXIT_OK;
  }
  if (values.env && values.json) throw new UsageError('--env and --json are two formats of the same output: choose one');
  const account = values.account;
  if (account !== 'provider' && account !== 'dealer') throw new UsageError(`--account must be provider or dealer${account === undefined ? '' : `, not ${JSON.stringify(account)}`}`);
  const windowSeconds = numberFlag(values.window, '--window', WINDOW);
  if (windowSeconds === undefined) throw new UsageError(`--window is required: how long the keys before stay valid, in seconds (${rangeOf(WINDOW)})`);
  const base = requireSetting(values['sandbox-url'], io, '--sandbox-url', ENVIRONMENT_NAMES.baseUrl);
  if (!URL.canParse(base)) throw new UsageError(`--sandbox-url is not a URL: ${base}`);
  const url = new URL(`${CONTROL_PREFIX}/rotate-keys`, base);

  const rotatedAt = Date.now();
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ account, windowSeconds, keepApiKey: values['keep-api-key'] }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'manual',
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new OperationError(`Could not reach the sandbox at ${url.origin} (--sandbox-url or ${ENVIRONMENT_NAMES.baseUrl}): ${cause}`);
  }
  const text = await response.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (!response.ok || !isRotated(answer)) {
    throw new OperationError(`${url.origin} did not rotate the keys (is it a payorch sandbox?): HTTP ${response.status} ${text.slice(0, 300)}`);
  }
  const names = KEY_VARIABLES[account];
  const exports = [`export ${names.apiKey}=${shellQuote(answer.apiKey)}`, `export ${names.secretKey}=${shellQuote(answer.secretKey)}`];
  if (values.env) {
    io.stdout.write(`${exports.join('\n')}\n`);
    return EXIT_OK;
  }
  const { previous } = answer;
  const until = receiverUntil(rotatedAt, previous.until);
  emit(
    io,
    values.json,
    () =>
      [
        `Rotated the ${account}'s keys. The keys before stay valid for requests until ${previous.until}.`,
        '',
        'The new keys (run these lines in your shell, and give them to your receivers and API clients):',
        ...exports,
        '',
        'The keys before. Your receivers and workers take them as previousSecretKey, with this until',
        '(3 days of redeliveries and a day for retries and replays; docs/rotating-keys.md):',
        `  API key     ${previous.apiKey}`,
        `  secret key  ${previous.secretKey}`,
        `  until       ${until}`,
      ].join('\n'),
    () => ({ account, apiKey: answer.apiKey, secretKey: answer.secretKey, previous: { apiKey: previous.apiKey, secretKey: previous.secretKey, requestsUntil: previous.until, receiversUntil: until } }),
  );
  return EXIT_OK;
}
