import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, test } from 'vitest';
import { CallbackVerificationError, RequestValidationError, verifyCallbackRequest } from '../../src/index.js';
import { now, sign, unsigned } from '../helpers/callbacks.js';
import { DEALER, PROVIDER } from '../helpers/wire.js';

const options = { ...PROVIDER, now };
const RECEIVER_URL = 'https://shop.example/webhooks/payorch';
const deposit = sign(unsigned.deposit, PROVIDER);

async function refusal(promise: Promise<unknown>): Promise<CallbackVerificationError> {
  const error = await promise.then(
    () => new Error('verifyCallbackRequest accepted the request'),
    (caught: unknown) => caught,
  );
  if (error instanceof CallbackVerificationError) return error;
  throw error;
}

describe('verifyCallbackRequest', () => {
  test('verifies a Fetch Request and reads its body once', async () => {
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: deposit.headers, body: JSON.stringify(deposit.body) });
    expect(await verifyCallbackRequest(request, options)).toEqual({ kind: 'deposit', source: 'callback', payload: deposit.body, ageSeconds: 0 });
    expect(request.bodyUsed).toBe(true);
  });

  test('reads headers in any letter case', async () => {
    const headers = Object.fromEntries(Object.entries(deposit.headers).map(([name, value]) => [name.toUpperCase(), value]));
    const request = new Request(RECEIVER_URL, { method: 'POST', headers, body: JSON.stringify(deposit.body) });
    expect((await verifyCallbackRequest(request, options)).kind).toBe('deposit');
  });

  test('verifies a dealer card callback sent without the headers from its body when the receiver opts in', async () => {
    const card = sign(unsigned.dealerCreditCard, DEALER);
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(card.body) });
    expect((await verifyCallbackRequest(request, { ...DEALER, now, dealerCardWithoutHeaders: true })).kind).toBe('dealerCreditCard');
  });

  test('reads a body that arrives in many chunks', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(deposit.body));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 7) controller.enqueue(bytes.slice(offset, offset + 7));
        controller.close();
      },
    });
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: deposit.headers, body: stream, duplex: 'half' } as RequestInit);
    expect((await verifyCallbackRequest(request, options)).kind).toBe('deposit');
  });

  test('refuses a wrong signature with 401', async () => {
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: { ...deposit.headers, 'X-Hash': '0'.repeat(64) }, body: JSON.stringify(deposit.body) });
    const error = await refusal(verifyCallbackRequest(request, options));
    expect([error.reason, error.status]).toEqual(['invalid_signature', 401]);
  });

  test('refuses a request without a body as malformed', async () => {
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: deposit.headers });
    expect((await refusal(verifyCallbackRequest(request, options))).reason).toBe('malformed_body');
  });

  test('refuses a declared Content-Length over 64 KiB without reading the body', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new TextEncoder().encode('{}'));
        controller.close();
      },
    }, { highWaterMark: 0 });
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: { ...deposit.headers, 'content-length': '70000' }, body: stream, duplex: 'half' } as RequestInit);
    const error = await refusal(verifyCallbackRequest(request, options));
    expect(error.reason).toBe('malformed_body');
    expect(pulled).toBe(0);
  });

  test('stops reading an endless body past 64 KiB and cancels it', async () => {
    let cancelled = false;
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(16_384).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: deposit.headers, body: stream, duplex: 'half' } as RequestInit);
    const error = await refusal(verifyCallbackRequest(request, options));
    expect(error.reason).toBe('malformed_body');
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(10);
  });

  test('refuses a request whose body was already read with a RequestValidationError naming the argument', async () => {
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: deposit.headers, body: JSON.stringify(deposit.body) });
    await request.text();
    const error = await verifyCallbackRequest(request, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ outcome: 'not_sent', issues: [{ field: 'request', rule: 'invalid_argument' }] });
    expect((error as Error).message).toBe('Invalid argument to verifyCallbackRequest: request: its body was already read; pass the request before anything reads it');
  });

  test('refuses maxAge, not an option, before reading the body, rather than leave the age limit at 3 days', async () => {
    const request = new Request(RECEIVER_URL, { method: 'POST', headers: deposit.headers, body: JSON.stringify(deposit.body) });
    const error = await verifyCallbackRequest(request, { ...options, maxAge: 5 } as typeof options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ outcome: 'not_sent', issues: [{ field: 'maxAge', rule: 'invalid_option', message: expect.stringMatching(/^is not an option of verifyCallback \(misspelt, or removed\?\); its options are apiKey, secretKey, maxAgeSeconds, /) as unknown }] });
    expect(request.bodyUsed).toBe(false);
  });

  test('given a Node IncomingMessage, says to use verifyCallback instead of failing inside it', async () => {
    const message = new IncomingMessage(new Socket());
    message.headers = { 'x-api-key': PROVIDER.apiKey, 'content-type': 'application/json' };
    const error = await verifyCallbackRequest(message as unknown as Request, options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toMatchObject([{ field: 'request', rule: 'invalid_argument' }]);
    expect((error as RequestValidationError).message).toMatch(/^Invalid argument to verifyCallbackRequest: request: must be a Fetch API Request.*looks like a Node IncomingMessage.*Use verifyCallback\(\{ headers: req\.headers, body: rawBody \}/);
    await expect(verifyCallbackRequest(undefined as unknown as Request, options)).rejects.toThrow(/must be a Fetch API Request/);
  });
});
