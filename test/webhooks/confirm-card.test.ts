import { delay, http } from 'msw';
import { describe, expect, test, vi } from 'vitest';
import { confirmWithCardStatus, createCallbackReceiver, ProviderClient, RequestValidationError, signCallback, TimeoutError } from '../../src/index.js';
import type { CallbackErrorDetails } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { BASE_URL, PROVIDER, capture } from '../helpers/wire.js';
import { server, useMsw } from '../mocks/server.js';

/*
 * confirmWithCardStatus against a real ProviderClient whose status endpoint msw answers: the
 * answer must be about the callback's own payment, and a slow endpoint must end the delivery
 * with a 500 the service sees, before the service gives up on the delivery itself.
 */

useMsw();

const STATUS_URL = `${BASE_URL}/api/provider/credit-card/status`;
const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 0 });
const CODE = unsigned.creditCard.tracking_code;
const statusAnswer = (data: Record<string, unknown> = {}) => ({ success: true, data: { tracking_code: CODE, status: 'success', amount: 150, currency: 'TRY', ...data } });

function receiverWith(confirm: ReturnType<typeof confirmWithCardStatus>) {
  const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
  const applied: string[] = [];
  const receiver = createCallbackReceiver({ ...PROVIDER, api: 'provider', confirm, onError: (error, details) => errors.push({ error, details }) });
  receiver.on('creditCard', (callback) => void applied.push(callback.payload.tracking_code));
  const deliver = () => receiver.receive(signCallback(unsigned.creditCard, PROVIDER));
  return { deliver, errors, applied };
}

describe('confirmWithCardStatus with a provider client', () => {
  test('applies a card callback whose status answer names the same payment, status and amount', async () => {
    const seen = capture('post', STATUS_URL, statusAnswer());
    const { deliver, applied } = receiverWith(confirmWithCardStatus(provider));
    expect(await deliver()).toMatchObject({ status: 200 });
    expect(applied).toEqual([CODE]);
    expect(seen.map((request) => request.body)).toEqual([`{"tracking_code":"${CODE}"}`]);
  });

  test('refuses with 409 a status answer about another tracking code, even with the same status and amount', async () => {
    capture('post', STATUS_URL, statusAnswer({ tracking_code: 'CC-other9-1763812100' }));
    const { deliver, applied, errors } = receiverWith(confirmWithCardStatus(provider));
    expect(await deliver()).toMatchObject({ status: 409, body: '{"success":false,"error":"not_confirmed"}' });
    expect(applied).toEqual([]);
    expect(errors.map(({ details }) => details.phase)).toEqual(['confirm']);
  });

  test('gives up on a status endpoint that does not answer at its timeout: 500, nothing applied, onError told', async () => {
    server.use(http.post(STATUS_URL, async () => delay('infinite')));
    const { deliver, applied, errors } = receiverWith(confirmWithCardStatus(provider, { timeout: 50 }));
    const started = performance.now();
    expect(await deliver()).toMatchObject({ status: 500, body: '{"success":false,"error":"not_applied"}' });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(applied).toEqual([]);
    expect(errors.map(({ error, details }) => [details.phase, error instanceof TimeoutError])).toEqual([['confirm', true]]);
  });

  test('passes its own timeout, 5 s by default (under the delivery timeouts of common senders), to each status call', async () => {
    const getStatus = vi.fn(() => Promise.resolve(statusAnswer()));
    await confirmWithCardStatus({ creditCard: { getStatus } })({ kind: 'creditCard', source: 'callback', payload: { ...unsigned.creditCard, timestamp: 1, hash: 'h' }, ageSeconds: 0 });
    await confirmWithCardStatus({ creditCard: { getStatus } }, { timeout: 1_500 })({ kind: 'creditCard', source: 'callback', payload: { ...unsigned.creditCard, timestamp: 1, hash: 'h' }, ageSeconds: 0 });
    expect(getStatus.mock.calls).toEqual([
      [{ tracking_code: CODE }, { timeout: 5_000 }],
      [{ tracking_code: CODE }, { timeout: 1_500 }],
    ]);
  });

  test('refuses something other than a provider client with a RequestValidationError naming the argument', () => {
    let error: unknown;
    try {
      confirmWithCardStatus({ creditCard: {} } as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toMatchObject({ outcome: 'not_sent', issues: [{ field: 'provider', rule: 'invalid_argument' }] });
    expect((error as Error).message).toMatch(/^Invalid argument to confirmWithCardStatus: provider: must be a provider client/);
  });

  test.each([
    [{ timeout: 0 }, 'must be a finite number of milliseconds from 1 to 2147483647'],
    [{ timeout: Infinity }, 'got Infinity'],
    [{ timeout: '5000' }, 'got "5000"'],
  ])('refuses the option %o with a RequestValidationError naming timeout', (options, message) => {
    let error: unknown;
    try {
      confirmWithCardStatus(provider, options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([{ field: 'timeout', rule: 'invalid_option', message: expect.stringContaining(message) as unknown }]);
  });

  test('refuses an option it does not have, naming it and timeout, rather than use the default timeout', () => {
    let error: unknown;
    try {
      confirmWithCardStatus(provider, { timeoutMs: 3_000 } as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues).toEqual([
      { field: 'timeoutMs', rule: 'invalid_option', message: 'is not an option of confirmWithCardStatus (misspelt, or removed?); its options are timeout' },
    ]);
  });
});
