import { describe, expect, test } from 'vitest';
import {
  APIError,
  AuthenticationError,
  ConnectionError,
  PermissionDeniedError,
  RequestAbortedError,
  RequestValidationError,
  ResponseValidationError,
  TimeoutError,
  UnprocessableEntityError,
} from '../../../src/index.js';
import type { CallOutcome, PayorchError, ProviderClient } from '../../../src/index.js';
import { CUSTOMER, refusedPort, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import type { Behaviour } from '../../helpers/loopback.js';
import { PROVIDER } from '../../helpers/wire.js';

/*
 * Every error a call raises says whether the service may have acted on it, for a call
 * that creates a money movement and for a read-only one alike, on a real socket.
 */

closeLoopbackServers();

type ErrorClass = abstract new (...args: never[]) => PayorchError;

/** A payment-creating call and a read-only one, each with valid or invalid input. */
const CALLS = {
  'a payment (manual.startDeposit)': (client: ProviderClient, options: { signal?: AbortSignal }, bad: boolean) =>
    client.manual.startDeposit({ ...CUSTOMER, amount: bad ? 0 : 250 }, options),
  'a read (creditCard.getStatus)': (client: ProviderClient, options: { signal?: AbortSignal }, bad: boolean) =>
    client.creditCard.getStatus({ tracking_code: bad ? ' ' : 'CC-k3J9x-1763812000' }, options),
} as const;

interface Case {
  readonly name: string;
  /** How the service answers; `undefined`: nothing listens (connection refused). */
  readonly behave: Behaviour | undefined;
  readonly bad?: boolean;
  readonly timeout?: number;
  /** `before`: the signal is aborted before the call; `after`: once the service has the request. */
  readonly abort?: 'before' | 'after';
  readonly error: ErrorClass;
  readonly outcome: CallOutcome;
  /** Whether the service saw the request. */
  readonly seen: boolean;
}

const never: Behaviour = () => undefined;
const refusal = (status: number, body: unknown): Behaviour => (_request, response) => json(response, status, body);

const CASES: readonly Case[] = [
  { name: 'bad input', behave: never, bad: true, error: RequestValidationError, outcome: 'not_sent', seen: false },
  { name: 'a refused connection', behave: undefined, error: ConnectionError, outcome: 'not_sent', seen: false },
  { name: 'an abort before sending', behave: never, abort: 'before', error: RequestAbortedError, outcome: 'not_sent', seen: false },
  { name: 'an abort after sending', behave: never, abort: 'after', error: RequestAbortedError, outcome: 'unknown', seen: true },
  { name: 'a timeout', behave: never, timeout: 300, error: TimeoutError, outcome: 'unknown', seen: true },
  { name: 'a reset connection', behave: (request) => { request.socket.resetAndDestroy(); }, error: ConnectionError, outcome: 'unknown', seen: true },
  { name: 'a 401', behave: refusal(401, { success: false, error: 'Invalid hash' }), error: AuthenticationError, outcome: 'refused', seen: true },
  { name: 'a 403', behave: refusal(403, { success: false, error: 'IP address not allowed' }), error: PermissionDeniedError, outcome: 'refused', seen: true },
  { name: 'a 422', behave: refusal(422, { success: false, error: 'Doğrulama hatası', messages: ['amount is required'] }), error: UnprocessableEntityError, outcome: 'refused', seen: true },
  { name: 'a 200 with success "false"', behave: refusal(200, { success: 'false', message: 'This customer is blocked. Payment not allowed.' }), error: APIError, outcome: 'refused', seen: true },
  { name: 'a 200 with success 0', behave: refusal(200, { success: 0, error: 'INSUFFICIENT_BALANCE', message: 'low' }), error: APIError, outcome: 'refused', seen: true },
  { name: 'a 500', behave: refusal(500, { success: false, message: 'Server Error' }), error: APIError, outcome: 'unknown', seen: true },
  { name: 'a 502 page that is not JSON', behave: (_request, response) => response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'), error: APIError, outcome: 'unknown', seen: true },
  { name: 'a 302 (never followed)', behave: (_request, response) => response.writeHead(302, { location: '/elsewhere' }).end(), error: APIError, outcome: 'unknown', seen: true },
  { name: 'a 200 that is not JSON', behave: (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>'), error: APIError, outcome: 'unknown', seen: true },
  { name: 'a 200 of the wrong shape', behave: refusal(200, { success: true, data: { tracking_code: 42 } }), error: ResponseValidationError, outcome: 'unknown', seen: true },
];

describe('error.outcome', () => {
  const rows = CASES.flatMap((entry) => Object.keys(CALLS).map((call) => [entry.name, call as keyof typeof CALLS, entry] as const));

  test.each(rows)('%s to %s', async (_name, call, entry) => {
    noBackoff();
    const controller = new AbortController();
    if (entry.abort === 'before') controller.abort(new Error('user left'));
    const behave = entry.behave;
    const server = behave === undefined
      ? undefined
      : await startServer((request, response, n, seen) => {
        if (entry.abort === 'after') controller.abort(new Error('user left'));
        return behave(request, response, n, seen);
      });
    const url = server?.url ?? `http://127.0.0.1:${await refusedPort()}`;
    const client = providerFor({ url }, { credentialKey: PROVIDER.credentialKey, maxRetries: 0, ...(entry.timeout === undefined ? {} : { timeout: entry.timeout }) });
    const error = await CALLS[call](client, { signal: controller.signal }, entry.bad === true).then(
      () => expect.unreachable('the call should fail'),
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(entry.error);
    expect((error as PayorchError).outcome).toBe(entry.outcome);
    expect((server?.seen.length ?? 0) > 0).toBe(entry.seen);
  });

  test('an abort says in its message which call it stopped and which side of the wire it happened on', () => {
    const call = { operation: 'provider.manual.startDeposit', request: { method: 'POST', url: 'https://pay.example.com/api/provider/start-manual-deposit' } };
    expect(new RequestAbortedError(undefined, { ...call, outcome: 'not_sent' }).message).toBe('POST /api/provider/start-manual-deposit (provider.manual.startDeposit) was aborted. Nothing was sent: it is safe to send again.');
    expect(new RequestAbortedError(undefined, { ...call, outcome: 'unknown' }).message).toBe('POST /api/provider/start-manual-deposit (provider.manual.startDeposit) was aborted after it was handed to fetch. The service may have processed it: the deposit may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).');
  });

  test('a failure before an attempt reached fetch (a now option that throws) is not_sent, says so, and is not retried', async () => {
    const server = await startServer((_request, response) => {
      json(response, 200, {});
    });
    const clockBroke = new Error('clock broke');
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey, now: () => { throw clockBroke; } });
    const error = (await client.manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught)) as PayorchError;
    expect(error.constructor.name).toBe('PayorchError');
    expect(error.outcome).toBe('not_sent');
    expect(error.message).toBe('POST /api/provider/start-manual-deposit (provider.manual.startDeposit): payorch could not prepare the request (clock broke). Nothing was sent: it is safe to send again.');
    expect(server.seen).toHaveLength(0);
  });

  test('an abort while waiting to retry a refused connection is not_sent, and nothing was resent', async () => {
    const controller = new AbortController();
    const port = await refusedPort();
    const client = providerFor({ url: `http://127.0.0.1:${port}` }, { credentialKey: PROVIDER.credentialKey, maxRetries: 5, onResponse: () => { controller.abort(new Error('user left')); } });
    const error = await client.manual.startDeposit({ ...CUSTOMER, amount: 250 }, { signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).outcome).toBe('not_sent');
  });

  // A batch cancelled with its first failure as the reason (controller.abort(error)): the reason is
  // another call's error, whose outcome says nothing of this one.
  const REASONS = [
    ['a plain Error', new Error('user left')],
    ["a sibling's RequestValidationError (not_sent)", new RequestValidationError('provider.manual.startWithdrawal', [{ field: 'iban', rule: 'too_small', message: 'too short' }])],
    ["a sibling's ConnectionError (not_sent)", new ConnectionError({ operation: 'provider.welcome', request: { method: 'POST', url: 'http://127.0.0.1:1/api/provider/welcome' }, cause: undefined, reason: 'connection_refused' })],
    ['a string', 'stop'],
  ] as const;

  test.each(REASONS)('an abort once the service read the payment is RequestAbortedError, unknown, whatever its reason: %s', async (_name, reason) => {
    const controller = new AbortController();
    const server = await startServer(() => { controller.abort(reason); });
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 5 })
      .manual.startWithdrawal({ ...CUSTOMER, amount: 100, iban: 'TR330006100519786457841326' }, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).outcome).toBe('unknown');
    expect((error as RequestAbortedError).cause).toBe(reason);
    expect((error as RequestAbortedError).message).toMatch(/the withdrawal may have been created\. Do not send it again/);
    expect(server.seen).toHaveLength(1);
  });

  test.each(REASONS)('an abort before sending is RequestAbortedError, not_sent, whatever its reason: %s', async (_name, reason) => {
    const server = await startServer(never);
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey }).manual.startDeposit({ ...CUSTOMER, amount: 250 }, { signal: AbortSignal.abort(reason) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).outcome).toBe('not_sent');
    expect(server.seen).toHaveLength(0);
  });

  test("an abort with a sibling's error while waiting to resend a 503 of a read keeps the read's unknown", async () => {
    noBackoff();
    const controller = new AbortController();
    const sibling = new RequestValidationError('provider.manual.startDeposit', [{ field: 'amount', rule: 'too_small', message: 'too small' }]);
    const server = await startServer(refusal(503, { success: false, message: 'busy' }));
    const client = providerFor(server, { maxRetries: 5, onResponse: () => { controller.abort(sibling); } });
    const error = await client.creditCard.getStatus({ tracking_code: 'CC-k3J9x-1763812000' }, { signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as RequestAbortedError).outcome).toBe('unknown');
  });

  test('a payment is resent only while the outcome is not_sent: after a 503 (unknown) it is not', async () => {
    noBackoff();
    const server = await startServer(refusal(503, { success: false, message: 'busy' }));
    const error = await providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 3 }).manual.startDeposit({ ...CUSTOMER, amount: 250 }).catch((caught: unknown) => caught);
    expect((error as APIError).outcome).toBe('unknown');
    expect(server.seen).toHaveLength(1);
  });
});
