import { expect, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import { SandboxError, createSandbox } from '../../src/tools/sandbox/index.js';
import { IBAN, customer, providerOf } from '../helpers/sandbox.js';
import { serveRefundOnce } from '../helpers/serve.js';

// settle(id, status, { also }): two end statuses of one withdrawal reach a merchant's receiver at
// the same moment, over a real socket, as a service that reports it rejected and failed at once;
// the guide's refund-once handler refunds once.
test('settle with also delivers rejected and failed of one withdrawal at once: both requests in flight together, refunded once, the record ends rejected', async () => {
  const sandbox = createSandbox();
  const { apiKey, secretKey } = sandbox.accounts.provider;
  const served = await serveRefundOnce(createCallbackReceiver({ apiKey, secretKey }));
  try {
    sandbox.setCallbackUrls({ withdrawal: served.url });
    const { data } = await providerOf(sandbox).manual.startWithdrawal({ ...customer, iban: IBAN, amount: 100 });
    const settled = await sandbox.settle(data.tracking_code, 'rejected', { also: ['failed'] });
    expect(settled.record.status).toBe('rejected');
    expect([settled.callback, ...(settled.also ?? [])].map((delivery) => delivery?.delivered)).toEqual([true, true]);
    expect(served.mostInFlight()).toBe(2);
    expect(served.refunds()).toBe(1);
    const [first, second] = served.seen;
    expect(served.seen.map((each) => each.status).sort()).toEqual(['failed', 'rejected']);
    expect([first?.appliedStatuses, second?.appliedStatuses]).toEqual([[], [first?.status]]);
  } finally {
    await served.close();
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
