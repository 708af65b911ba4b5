import { describe, expect, test } from 'vitest';
import { APIError, AuthenticationError, BadRequestError, ConflictError, InternalServerError, NotFoundError, PermissionDeniedError, RateLimitError, TimeoutError, UnprocessableEntityError } from '../../src/index.js';
import type { CallOutcome, PayorchError } from '../../src/index.js';
import { CUSTOMER, closeLoopbackServers, json, noBackoff, providerFor, startServer } from '../helpers/loopback.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * The classes a status decides whatever the body (404, 429, any 5xx), next to the mappings by
 * text and by `messages`, over real sockets; and the sentence every message of a call ends with,
 * saying whether money may have moved, since most people log `error.message` and nothing else.
 */

closeLoopbackServers();

const DEPOSIT = { ...CUSTOMER, amount: 250 };
const MAY_EXIST = 'The service may have processed it: the deposit may have been created. Do not send it again; wait for its callback (docs/errors-and-retries.md).';
const REFUSED = 'The service refused it: nothing was created.';

type ErrorClass = abstract new (...args: never[]) => APIError;
const STATUS_ROWS: readonly (readonly [number, unknown, ErrorClass, CallOutcome])[] = [
  [404, { success: false, error: 'Not Found' }, NotFoundError, 'refused'],
  [404, '<html>Cannot POST /api/api/provider/start-manual-deposit</html>', NotFoundError, 'refused'],
  // The status decides, even where the body's text or `messages` would pick another class.
  [404, { success: false, error: 'Invalid hash' }, NotFoundError, 'refused'],
  [429, { success: false, messages: ['too many requests'] }, RateLimitError, 'refused'],
  [500, { success: false, error: 'Invalid hash' }, InternalServerError, 'unknown'],
  [502, '<html>Bad Gateway</html>', InternalServerError, 'unknown'],
  [503, { success: false, error: 'Yetkisiz Credential Key' }, InternalServerError, 'unknown'],
  [599, '', InternalServerError, 'unknown'],
  // The mappings docs/spec-gaps.md decided stay as they were.
  [401, { success: false, error: 'Invalid hash' }, AuthenticationError, 'refused'],
  [403, { success: false, error: 'IP address not allowed' }, PermissionDeniedError, 'refused'],
  [200, { success: false, error: 'Yetkisiz Credential Key' }, PermissionDeniedError, 'refused'],
  [422, { success: false, messages: ['amount is required'] }, UnprocessableEntityError, 'refused'],
  [400, { success: false, error: 'Bad request' }, BadRequestError, 'refused'],
  [409, { success: false, error: 'Duplicate' }, ConflictError, 'refused'],
  [418, { success: false, error: 'Teapot' }, APIError, 'refused'],
];

describe('the class of a failed answer', () => {
  test.each(STATUS_ROWS)('HTTP %i with %j is a %o (outcome %s), and its message says whether money may have moved', async (status, body, errorClass, outcome) => {
    const server = await startServer((_request, response) => (typeof body === 'string' ? response.writeHead(status, { 'content-type': 'text/html' }).end(body) : json(response, status, body)));
    const error = (await providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 0 }).manual.startDeposit(DEPOSIT).catch((caught: unknown) => caught)) as PayorchError;
    expect(error.constructor).toBe(errorClass);
    expect(error).toBeInstanceOf(APIError);
    expect(error.name).toBe(errorClass.name);
    expect(error.outcome).toBe(outcome);
    expect(error.message.endsWith(outcome === 'unknown' ? MAY_EXIST : REFUSED)).toBe(true);
  });

  test('a 429 is retried for a read and never resent for a payment', async () => {
    noBackoff();
    const server = await startServer((_request, response) => json(response, 429, { success: false, error: 'slow down' }, { 'retry-after': '0' }));
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 2 });
    await expect(client.manual.startDeposit(DEPOSIT)).rejects.toBeInstanceOf(RateLimitError);
    expect(server.seen).toHaveLength(1);
    await expect(client.creditCard.getStatus({ tracking_code: 'CC-k3J9x-1700000000' })).rejects.toBeInstanceOf(RateLimitError);
    expect(server.seen).toHaveLength(4);
  });
});

describe('the message of a call that failed', () => {
  test('a timed-out deposit says the deposit may have been created; a timed-out read says a retry is safe', async () => {
    const server = await startServer(() => undefined);
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey, maxRetries: 0 });
    const deposit = await client.manual.startDeposit(DEPOSIT, { timeout: 200 }).catch((caught: unknown) => caught);
    expect(deposit).toBeInstanceOf(TimeoutError);
    expect((deposit as Error).message).toBe(`POST /api/provider/start-manual-deposit (provider.manual.startDeposit) did not complete within 200 ms. ${MAY_EXIST}`);
    const read = await client.creditCard.getStatus({ tracking_code: 'CC-k3J9x-1700000000' }, { timeout: 200 }).catch((caught: unknown) => caught);
    expect((read as Error).message).toBe('POST /api/provider/credit-card/status (provider.creditCard.getStatus) did not complete within 200 ms. The service may have processed it; receiving it twice moves no money, so it is safe to retry.');
  });

  // Only what exists for that call is offered: the spec gives a status endpoint to provider card
  // payments and dealer transfers only, and dealer manual IBAN records neither that nor a callback.
  test.each([
    ['provider.manual.startWithdrawal', 'the withdrawal', 'wait for its callback'],
    ['provider.thirdParty.crypto.startDeposit', 'the deposit', 'wait for its callback'],
    ['provider.creditCard.createPayment', 'the payment', 'wait for its callback, or read its status (creditCard.getStatus) once you hold its tracking code'],
    ['dealer.creditCard.createPayment', 'the payment', 'wait for its callback'],
    ['dealer.transfers.send', 'the transfer', 'transfers have no callback: read its status (transfers.getStatus) once you know its transfer_id, or check the dealer panel'],
    ['dealer.manualIban.startWithdrawal', 'the withdrawal', 'it has no callback and no status endpoint: check the dealer panel'],
    ['provider.request /new-endpoint', 'a payment', "wait for its callback, if it has one, or check the service's panel"],
  ])('a 5xx to %s names what may have been created (%s) and only what can be done for it', (operation, thing, step) => {
    const error = APIError.generate({ status: 500, headers: {}, body: '', request: { method: 'POST', url: 'https://pay.example.com/x' }, call: { operation, resendable: false } });
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toContain(`The service may have processed it: ${thing} may have been created. Do not send it again; ${step} (docs/errors-and-retries.md).`);
  });
});
