import { afterEach, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../src/tools/sandbox/index.js';
import { SANDBOX_BASE_URL, customer, providerOf, read, startReceiver } from '../helpers/sandbox.js';
import type { TestReceiver } from '../helpers/sandbox.js';

const START = Date.UTC(2026, 0, 15, 9, 0, 0);

/** A control call, as the CLI's user would make it with curl. */
async function call(sandbox: Sandbox, method: string, path: string, body?: unknown, clientAddress = '127.0.0.1') {
  const request = new Request(`${SANDBOX_BASE_URL}/__sandbox${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return read(await sandbox.handle(request, { clientAddress }));
}

let receiver: TestReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe('the controls under /__sandbox', () => {
  test('the index lists the accounts and the controls', async () => {
    const sandbox = createSandbox();
    const { status, body } = await call(sandbox, 'GET', '');
    expect(status).toBe(200);
    expect(body['accounts']).toEqual(sandbox.accounts);
    expect(body['endpoints']).toEqual(expect.arrayContaining([expect.stringMatching(/^POST \/__sandbox\/settle /)]));
  });

  test('records are listed and read one by one', async () => {
    const sandbox = createSandbox({ startTime: START });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    const list = await call(sandbox, 'GET', '/records');
    expect(list.body['records']).toEqual([expect.objectContaining({ id: data.tracking_code, kind: 'manualDeposit', status: 'showing', createdAt: '2026-01-15T09:00:00.000Z' })]);
    expect((await call(sandbox, 'GET', `/records/${encodeURIComponent(data.tracking_code)}`)).body['record']).toMatchObject({ id: data.tracking_code });
    expect(await call(sandbox, 'GET', '/records/MAN-none')).toEqual({ status: 404, body: { success: false, error: 'Not Found', message: 'No record has the id MAN-none' } });
  });

  test('settle moves a record and delivers its callback; deliveries lists the attempts', async () => {
    receiver = await startReceiver();
    const sandbox = createSandbox({ callbackUrls: { deposit: receiver.url } });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    const settled = await call(sandbox, 'POST', '/settle', { id: data.tracking_code, status: 'completed', amount: 95 });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true, record: { id: data.tracking_code, status: 'completed', amount: 95 }, callback: { delivered: true } });
    expect(receiver.received).toHaveLength(1);
    const deliveries = await call(sandbox, 'GET', '/deliveries');
    expect(deliveries.body['deliveries']).toEqual([expect.objectContaining({ trackingCode: data.tracking_code, status: 'completed', httpStatus: 200, delivered: true })]);
  });

  test('a refused move is 409, an unknown record 404, a bad amount 422', async () => {
    const sandbox = createSandbox();
    const { data } = await providerOf(sandbox).manual.startWithdrawal({ ...customer, iban: 'TR330006100519786457841326', amount: 100 });
    expect(await call(sandbox, 'POST', '/settle', { id: data.tracking_code, status: 'expired' })).toMatchObject({ status: 409, body: { success: false, error: 'refused_move' } });
    expect(await call(sandbox, 'POST', '/settle', { id: 'WIT-none', status: 'completed' })).toMatchObject({ status: 404, body: { error: 'unknown_record' } });
    expect(await call(sandbox, 'POST', '/settle', { id: data.tracking_code, status: 'completed', amount: 5 })).toMatchObject({ status: 422, body: { error: 'invalid_amount' } });
  });

  test('a malformed control body is refused', async () => {
    const sandbox = createSandbox();
    expect(await call(sandbox, 'POST', '/settle', '{')).toEqual({ status: 400, body: { success: false, error: 'Invalid JSON', message: 'The request body is not valid JSON' } });
    expect(await call(sandbox, 'POST', '/settle', { id: 'x' })).toEqual({ status: 422, body: { success: false, error: 'Doğrulama hatası', messages: ['status is required'] } });
  });

  test('the clock is read, advanced and set, expiring what runs out', async () => {
    const sandbox = createSandbox({ startTime: START });
    const { data } = await providerOf(sandbox).manual.startDeposit({ ...customer, amount: 100 });
    expect((await call(sandbox, 'GET', '/clock')).body).toEqual({ success: true, now: '2026-01-15T09:00:00.000Z' });
    const advanced = await call(sandbox, 'POST', '/clock', { advanceSeconds: 1800 });
    expect(advanced.body).toMatchObject({ now: '2026-01-15T09:30:00.000Z', expired: [{ record: { id: data.tracking_code, status: 'expired' } }] });
    expect((await call(sandbox, 'POST', '/clock', { set: '2026-02-01T00:00:00Z' })).body).toMatchObject({ now: '2026-02-01T00:00:00.000Z', expired: [] });
  });

  test('a clock move past 9999-12-31 is 422 invalid_option, naming the value and the range, and the clock stays', async () => {
    const sandbox = createSandbox({ startTime: Date.UTC(9999, 11, 31) });
    const answer = await call(sandbox, 'POST', '/clock', { advanceSeconds: 86_400 });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ success: false, error: 'invalid_option' });
    expect(answer.body['message']).toMatch(/^Invalid option for sandbox\.clock\.advance: milliseconds: must be a finite number of milliseconds from 0 to 86399000 \(the record clock ends at 9999-12-31\); got 86400000$/);
    expect(sandbox.clock.now().toISOString()).toBe('9999-12-31T00:00:00.000Z');
  });

  test('callback URLs are replaced', async () => {
    const sandbox = createSandbox({ callbackUrls: { withdrawal: 'http://127.0.0.1:1/old' } });
    const answer = await call(sandbox, 'PUT', '/callback-urls', { deposit: 'http://127.0.0.1:3000/webhooks/payorch' });
    expect(answer.body).toEqual({ success: true, callbackUrls: { deposit: 'http://127.0.0.1:3000/webhooks/payorch' } });
    expect((await call(sandbox, 'PUT', '/callback-urls', { deposit: 'not a url' })).status).toBe(422);
  });

  test('only loopback callers may use them', async () => {
    expect(await call(createSandbox(), 'GET', '/accounts', undefined, '203.0.113.7')).toEqual({
      status: 403,
      body: { success: false, error: 'Forbidden', message: 'The sandbox controls answer loopback callers only' },
    });
  });

  test('an unknown control is 404', async () => {
    expect((await call(createSandbox(), 'DELETE', '/records')).status).toBe(404);
  });
});
