import { safeParseTrackingCode } from 'payorch';
import { signCallback } from 'payorch/webhooks';
import type { CallbackKind, SignCallbackPayload } from 'payorch/webhooks';
import { callbackBody } from '../cli-internals.js';
import { CALLBACK_KINDS, CALLBACK_STATUSES, isCallbackKind } from '../../webhooks/kinds.js';
import { checkRecordCode, sandboxRecordFields } from './trigger-record.js';
import { readSets, settableFields } from './trigger-fields.js';
import { DEFAULT_WAIT_MS, WAIT_TIMEOUT, numberFlag, rangeOf } from './flags.js';
import { COMMON_OPTIONS, CREDENTIAL_OPTIONS, EXIT_FAILED, EXIT_OK, OperationError, UsageError, accountKeys, colours, emit, parse, printable, secretKeyHelp } from './io.js';
import type { Command, Io } from './io.js';

const EVENTS = CALLBACK_KINDS.map((kind) => `  ${kind.padEnd(17)} ${CALLBACK_STATUSES[kind].join(', ')}`).join('\n');

/** The fields of each kind, wrapped under the kind at the width of the rest of the help. */
const FIELDS = CALLBACK_KINDS.map((kind) => {
  const lines: string[] = [];
  for (const field of settableFields(kind)) {
    const last = lines.length - 1;
    if (last >= 0 && `${lines[last] ?? ''}, ${field}`.length <= 76) lines[last] = `${lines[last] ?? ''}, ${field}`;
    else lines.push(field);
  }
  return `  ${kind.padEnd(17)} ${lines.join(',\n                    ')}`;
}).join('\n');

const USAGE = `Usage: payorch trigger <kind>.<status> --forward-to <url> [options]

Sends your receiver a callback as the service would: every field of its kind (spec 6.2 to 6.5),
signed per spec 5.3 (X-Api-Key, X-Timestamp, X-Hash, and the body's hash and timestamp).
Prints the receiver's status and body; exits 0 on a 2xx answer, 1 otherwise.

Events:
${EVENTS}

Fields --set may change (the hash covers tracking_code, status and timestamp: trigger signs them):
${FIELDS}

Options:
  --forward-to <url>       the receiver's URL (required)
  --api-key <key>          account API key (default $PAYORCH_PROVIDER_API_KEY, or
                           $PAYORCH_DEALER_API_KEY for dealerCreditCard)
${secretKeyHelp('$PAYORCH_PROVIDER_SECRET_KEY, or\n                           $PAYORCH_DEALER_SECRET_KEY for dealerCreditCard')}
  --tracking-code <code>   the record's tracking code (default a fresh one of the kind's prefix)
  --set <field=value>      an unsigned field of the callback, typed as spec 6 types it (amount a
                           number, site_id a whole number, success true or false, others text);
                           repeat for several fields; applied last, over every other source
  --from-record <code>     the callback of one of your records: with --sandbox-url, the record is
                           read from that sandbox and the callback carries its amount, site and
                           customer; without, <code> is a tracking code of your own records, sent
                           as tracking_code once its prefix fits the event (spec 2.1), the other
                           fields being the defaults and --set
  --sandbox-url <url>      the payorch sandbox --from-record reads from (its URL, as printed)
  --amount <n>             the amount (default 250); the same as --set amount=<n>
  --also <status>          send the same record with <status> too, at the same moment: two end
                           statuses racing (withdrawal.rejected --also failed), to test that your
                           handler refunds once; repeat for more; exits 0 when every answer is 2xx
  --timeout <ms>           how long to wait for the receiver (${rangeOf(WAIT_TIMEOUT)})
  --json                   print the sent callback and the answer as JSON
  -h, --help               show this text

Examples:
  payorch trigger deposit.completed --forward-to http://127.0.0.1:3000/webhooks/payorch
  payorch trigger deposit.completed --forward-to http://127.0.0.1:3000/webhooks/payorch \\
    --tracking-code MAN-a8Xk29Qp-1763812000 --set user_id=u-42 --set amount=312.50 --set site_id=3
  payorch trigger withdrawal.completed --forward-to http://127.0.0.1:3000/webhooks/payorch \\
    --sandbox-url http://127.0.0.1:4010 --from-record WIT-ab120001-1763812000
  payorch trigger withdrawal.rejected --also failed --forward-to http://127.0.0.1:3000/webhooks/payorch`;

const PREFIX: Record<CallbackKind, string> = { deposit: 'MAN', withdrawal: 'WIT', creditCard: 'CC', dealerCreditCard: 'CC' };

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randomText(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/**
 * A callback of `kind` with every field its table gives that status (spec 6.2 to 6.5): fresh
 * ids, the time, and each other field's example.
 */
function payloadFromFlags(kind: CallbackKind, status: string, trackingCode: string, amount: number, now: Date): SignCallbackPayload {
  return callbackBody(kind, status, {
    tracking_code: trackingCode,
    amount,
    tx_id: `TX${randomText(10)}`,
    order_id: `ORD-${randomText(10)}`,
    success: status === 'success',
    status_message: status === 'success' ? 'Payment completed' : 'Payment failed',
    completed_at: now.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
  });
}

function readEvent(event: string | undefined): { kind: CallbackKind; status: string } {
  if (event === undefined) throw new UsageError('name the callback to send, as <kind>.<status>, for example deposit.completed');
  const [kind = '', status = ''] = event.split(/\.(.*)/s);
  if (!isCallbackKind(kind)) throw new UsageError(`unknown callback kind ${JSON.stringify(kind)}: use one of ${CALLBACK_KINDS.join(', ')}`);
  const statuses: readonly string[] = CALLBACK_STATUSES[kind];
  if (!statuses.includes(status)) throw new UsageError(`a ${kind} callback carries one of the statuses ${statuses.join(', ')}, not ${JSON.stringify(status)}`);
  return { kind, status };
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      ...COMMON_OPTIONS,
      ...CREDENTIAL_OPTIONS,
      'forward-to': { type: 'string' },
      'tracking-code': { type: 'string' },
      set: { type: 'string', multiple: true, default: [] },
      'from-record': { type: 'string' },
      'sandbox-url': { type: 'string' },
      amount: { type: 'string' },
      timeout: { type: 'string' },
      also: { type: 'string', multiple: true, default: [] },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  if (positionals.length > 1) throw new UsageError(`one event at a time: ${positionals.join(' ')}`);
  const { kind, status } = readEvent(positionals[0]);
  const statuses = [status, ...values.also.map((also) => readEvent(`${kind}.${also}`).status)];
  if (new Set(statuses).size < statuses.length) throw new UsageError(`--also names a status sent already: ${statuses.join(', ')}; each status once`);
  const target = values['forward-to'];
  if (target === undefined) throw new UsageError('--forward-to <url> is required: where your receiver listens');
  if (!URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) throw new UsageError(`--forward-to must be an http or https URL: ${target}`);
  if (values.amount !== undefined && values.set.some((entry) => entry.startsWith('amount='))) throw new UsageError('--amount and --set amount=… say the same thing: give one');
  const amount = Number(values.amount);
  if (values.amount !== undefined && (values.amount.trim() === '' || !Number.isFinite(amount) || amount <= 0)) {
    throw new UsageError(`--amount must be a positive number: ${values.amount}`);
  }
  const sets = { ...readSets(kind, values.set), ...(values.amount === undefined ? {} : { amount }) };
  const timeoutMs = numberFlag(values.timeout, '--timeout', WAIT_TIMEOUT) ?? DEFAULT_WAIT_MS;
  const fromRecord = values['from-record'];
  const sandboxUrl = values['sandbox-url'];
  if (fromRecord !== undefined && values['tracking-code'] !== undefined) throw new UsageError('--from-record names the tracking code already: leave out --tracking-code');
  if (sandboxUrl !== undefined && fromRecord === undefined) throw new UsageError('--sandbox-url says where --from-record reads the record: give --from-record <tracking_code> too');
  if (sandboxUrl !== undefined && (!URL.canParse(sandboxUrl) || !/^https?:$/.test(new URL(sandboxUrl).protocol))) throw new UsageError(`--sandbox-url must be an http or https URL: ${sandboxUrl}`);
  if (fromRecord !== undefined) checkRecordCode(kind, fromRecord);
  const now = new Date();
  const trackingCode = fromRecord ?? values['tracking-code'] ?? `${PREFIX[kind]}-${randomText(8)}-${Math.floor(now.getTime() / 1000)}`;
  if (!safeParseTrackingCode(trackingCode).success) {
    throw new UsageError(`--tracking-code is not a tracking code of spec 2.1 (PREFIX-segment-unixseconds, for example MAN-a8Xk29Qp-1763812000): ${trackingCode}`);
  }
  const keys = await accountKeys(values, io, kind === 'dealerCreditCard' ? 'dealer' : 'provider');
  const fields =
    fromRecord !== undefined && sandboxUrl !== undefined
      ? await sandboxRecordFields(sandboxUrl, kind, status, fromRecord, timeoutMs)
      : payloadFromFlags(kind, status, trackingCode, 250, now);
  // --set last: it is what the user asked for in so many words. With --also, each status is the
  // same record's: one set of fields, each signed with its own status, all sent at once.
  const deliveries = await Promise.all(
    statuses.map(async (each) => {
      const signed = signCallback({ ...fields, ...sets, tracking_code: trackingCode, status: each }, keys);
      return { status: each, signed, ...(await send(target, signed, timeoutMs, `${kind}.${each}`)) };
    }),
  );
  const c = colours(io.stdout, io.env);
  const isDelivered = (code: number): boolean => code >= 200 && code < 300;
  const results = deliveries.map(({ status: each, signed, response, answer }) => ({
    text: [
      `${c.bold(`${kind}.${each}`)} ${trackingCode} -> ${target}`,
      `${isDelivered(response.status) ? c.green(String(response.status)) : c.red(String(response.status))} ${printable(response.statusText)}`,
      // The receiver's body, one line: escaped, so that it cannot paint lines of its own.
      answer === '' ? c.dim('(empty body)') : printable(answer),
    ].join('\n'),
    json: {
      event: `${kind}.${each}`,
      target,
      request: { headers: signed.headers, body: JSON.parse(signed.body) as unknown },
      response: { status: response.status, body: answer },
    },
  }));
  emit(
    io,
    values.json,
    () => results.map((result) => result.text).join('\n\n'),
    // One callback: its object, as always; several: one object each, in the order of the statuses.
    () => (results.length === 1 ? results[0]?.json : results.map((result) => result.json)),
  );
  return deliveries.every(({ response }) => isDelivered(response.status)) ? EXIT_OK : EXIT_FAILED;
}

async function send(target: string, signed: { readonly headers: Record<string, string>; readonly body: string }, timeoutMs: number, event: string): Promise<{ response: Response; answer: string }> {
  try {
    const response = await fetch(target, { method: 'POST', headers: signed.headers, body: signed.body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    return { response, answer: await response.text() };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : error instanceof Error ? `: ${error.message}` : '';
    throw new OperationError(`Could not deliver the ${event} callback to ${target}${cause}`);
  }
}

export const triggerCommand: Command = { usage: USAGE, run };
