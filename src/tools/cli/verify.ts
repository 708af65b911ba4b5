import { CallbackVerificationError, verifyCallback } from 'payorch/webhooks';
import type { VerifiedCallback } from 'payorch/webhooks';
import { CALLBACK_KINDS, isCallbackKind } from '../../webhooks/kinds.js';
import { VERIFY_OPTIONS } from '../../webhooks/verify.js';
import { declared, numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, CREDENTIAL_OPTIONS, EXIT_FAILED, EXIT_OK, UsageError, accountKeys, colours, emit, inFlags, parse, printable, readInput, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';

// verifyCallback's own options: the flags take what they take, with their defaults.
const MAX_AGE = declared(VERIFY_OPTIONS, 'maxAgeSeconds');
const TOLERANCE = declared(VERIFY_OPTIONS, 'toleranceSeconds');

const USAGE = `Usage: payorch verify --body <file|-> [--header 'Name: value' ...] [options]

Runs verifyCallback on a callback you captured (from your receiver's log, a proxy, or
payorch trigger --json) and prints its kind, status and age; or why it is refused and the
HTTP status your receiver should answer. Exits 0 when it verifies, 1 when it is refused.
What payorch trigger --json printed is taken as it is: its headers and body are used
(a --header given as well wins over its header of that name).

Options:
  --body <file|->          the body exactly as received, or payorch trigger --json output;
                           - reads standard input (required)
  --header <'Name: v'>     a request header, repeat for each (X-Api-Key, X-Timestamp, X-Hash)
  --kind <kind>            ${CALLBACK_KINDS.join(', ')} (default: told from the body)
  --api-key <key>          account API key (default $PAYORCH_PROVIDER_API_KEY, or
                           $PAYORCH_DEALER_API_KEY for a dealer card callback)
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY, or\n                           $PAYORCH_DEALER_SECRET_KEY for a dealer card callback')}
  --max-age <s>            oldest signature accepted, in seconds (${rangeOf(MAX_AGE)}: 3 days, a
                           redelivery may keep its first signature)
  --tolerance <s>          how far in the future the timestamp may be (${rangeOf(TOLERANCE)})
  --dealer-card-without-headers
                           verify a dealer card callback that came without X-Api-Key,
                           X-Timestamp and X-Hash from its body's hash and timestamp (spec 6.5)
  --json                   print the result as JSON
  -h, --help               show this text

Example:
  payorch verify --header "X-Api-Key: $KEY" --header 'X-Timestamp: 1763812345' \\
    --header 'X-Hash: 9f2c…' --body callback.json`;

// A header given twice stays twice, as a server would see it: the receiver refuses it as repeated_header.
function readHeaders(entries: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const name = entry.slice(0, colon).trim();
    if (colon < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header takes 'Name: value': ${entry}`);
    const key = name.toLowerCase();
    const value = entry.slice(colon + 1).trim();
    const before = headers[key];
    headers[key] = before === undefined ? value : [...(typeof before === 'string' ? [before] : before), value];
  }
  return headers;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The callback inside `payorch trigger --json` output (`{ event, request: { headers, body } }`),
 * or undefined for anything else. Its body was printed parsed; the hash covers tracking_code,
 * status and timestamp, not the bytes, so the body written out again verifies the same.
 */
function fromTriggerOutput(text: string): { event: string; headers: Record<string, string>; body: string } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed['event'] !== 'string' || !isRecord(parsed['request'])) return undefined;
  const { headers, body } = parsed['request'];
  if (!isRecord(headers) || !isRecord(body)) return undefined;
  const names = Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return { event: parsed['event'], headers: Object.fromEntries(names.map(([name, value]) => [name.toLowerCase(), value])), body: JSON.stringify(body) };
}

function withoutHash(payload: VerifiedCallback['payload']): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...payload };
  delete fields['hash'];
  return fields;
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    ...COMMON_OPTIONS,
    ...CREDENTIAL_OPTIONS,
    body: { type: 'string' },
    header: { type: 'string', multiple: true, default: [] },
    kind: { type: 'string' },
    tolerance: { type: 'string' },
    'max-age': { type: 'string' },
    'dealer-card-without-headers': { type: 'boolean', default: false },
  });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (values.body === undefined) throw new UsageError('--body <file|-> is required: the callback body as received');
  const kind = values.kind;
  if (kind !== undefined && !isCallbackKind(kind)) throw new UsageError(`--kind must be one of ${CALLBACK_KINDS.join(', ')}: ${kind}`);
  const tolerance = numberFlag(values.tolerance, '--tolerance', TOLERANCE);
  const maxAge = numberFlag(values['max-age'], '--max-age', MAX_AGE);
  const given = readHeaders(values.header);
  if (values['secret-key-stdin'] && values.body === '-') throw new UsageError('standard input cannot carry both --body - and --secret-key-stdin: use --secret-key-file');
  const input = await readInput(values.body, io);
  const captured = fromTriggerOutput(input);
  const body = captured?.body ?? input;
  const headers = { ...captured?.headers, ...given };
  const dealer = kind === 'dealerCreditCard' || (kind === undefined && captured?.event.startsWith('dealerCreditCard.') === true) || values['dealer-card-without-headers'];
  const keys = await accountKeys(values, io, dealer ? 'dealer' : 'provider');
  const c = colours(io.stdout, io.env);

  let callback: VerifiedCallback;
  try {
    callback = verifyCallback(
      { headers: Object.keys(headers).length === 0 ? undefined : headers, body },
      {
        ...keys,
        ...(kind === undefined ? {} : { kind }),
        ...(tolerance === undefined ? {} : { toleranceSeconds: tolerance }),
        ...(maxAge === undefined ? {} : { maxAgeSeconds: maxAge }),
        dealerCardWithoutHeaders: values['dealer-card-without-headers'],
      },
    );
  } catch (error) {
    if (!(error instanceof CallbackVerificationError)) throw error;
    emit(
      io,
      values.json,
      () =>
        [
          `${c.red('refused')} ${error.reason}`,
          printable(inFlags(error.message)),
          `Answer HTTP ${error.status}${error.status === 401 ? ' (not authentic: the service will retry, and a genuine retry must verify)' : ' (the body cannot be processed)'}`,
          ...error.issues.map((issue) => `  ${printable(issue.field || '(body)')}: ${printable(issue.message)}`),
        ].join('\n'),
      () => ({ verified: false, reason: error.reason, message: inFlags(error.message), status: error.status, issues: error.issues }),
    );
    return EXIT_FAILED;
  }
  const { payload, ageSeconds } = callback;
  emit(
    io,
    values.json,
    () =>
      [
        `${c.green('verified')} ${c.bold(printable(`${callback.kind}.${payload.status}`))}`,
        `tracking code  ${printable(payload.tracking_code)}`,
        ...(payload.amount === undefined ? [] : [`amount         ${printable(String(payload.amount))}`]),
        `signed         ${new Date(payload.timestamp * 1000).toISOString()} (${ageSeconds} s ago)`,
        'Answer HTTP 200 once it is applied; the hash covers tracking_code, status and timestamp only, so compare the amount with your record.',
      ].join('\n'),
    // The body's hash is left out: a signature does not belong in logs, and the user has it anyway.
    () => ({ verified: true, kind: callback.kind, status: payload.status, trackingCode: payload.tracking_code, ageSeconds, payload: withoutHash(payload) }),
  );
  return EXIT_OK;
}

export const verifyCommand: Command = { usage: USAGE, run };
