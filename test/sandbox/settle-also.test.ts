import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import { SandboxError, createSandbox } from '../../src/sandbox/index.js';
import { IBAN, customer, providerOf } from '../helpers/sandbox.js';

// settle(id, status, { also }): two end statuses of one withdrawal reach a merchant's receiver at
// the same moment, over a real socket, as a service that reports it rejected and failed at once.
test('settle with also delivers rejected and failed of one withdrawal at once: both handlers run together, the record ends rejected', async () => {
  const sandbox = createSandbox();
  const { apiKey, secretKey } = sandbox.accounts.provider;
  const receiver = createCallbackReceiver({ apiKey, secretKey });
  const running: string[] = [];
  const waits: string[] = [];
  let bothRunning = (): void => undefined;
  const both = new Promise<void>((resolve) => (bothRunning = resolve));
  receiver.on('withdrawal', async (callback) => {
    running.push(`${callback.payload.tracking_code} ${callback.payload.status}`);
    if (running.length === 2) bothRunning();
    waits.push(await Promise.race([both.then(() => 'together'), new Promise<string>((resolve) => setTimeout(() => { resolve('alone'); }, 5000))]));
  });
  const server = createServer((request, response) => void receiver.nodeHandler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    sandbox.setCallbackUrls({ withdrawal: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/payorch` });
    const { data } = await providerOf(sandbox).manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 });
    const settled = await sandbox.settle(data.tracking_code, 'rejected', { also: ['failed'] });
    expect(settled.record.status).toBe('rejected');
    expect([settled.callback, ...(settled.also ?? [])].map((delivery) => delivery?.delivered)).toEqual([true, true]);
    expect(running.sort()).toEqual([`${data.tracking_code} failed`, `${data.tracking_code} rejected`]);
    expect(waits).toEqual(['together', 'together']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('also refuses a status the record cannot move to, or the same status again, before anything moves', async () => {
  const sandbox = createSandbox();
  const { data } = await providerOf(sandbox).manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 });
  for (const also of [['rejected'], ['expired']]) {
    const refused = await sandbox.settle(data.tracking_code, 'rejected', { also }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SandboxError);
    expect(refused).toMatchObject({ code: 'refused_move', message: expect.stringContaining(`also: ${also[0]!} is not another end status`) as unknown });
  }
  expect(sandbox.record(data.tracking_code)?.status).toBe('pending');
});
