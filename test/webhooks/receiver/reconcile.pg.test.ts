// A callback that never came, recovered by receiver.reconcile: the sandbox on a real socket
// settles card payments while every delivery fails, and two receiver instances (each its own pool
// and inbox over one PostgreSQL table) reconcile them, race each other and the late callback.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createCallbackReceiver, ProviderClient } from '../../../src/index.js';
import type { CallbackReceiver, ReconcileResult } from '../../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox } from '../../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../../src/inboxes/postgres/index.js';
import { createSandbox } from '../../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../../src/tools/sandbox/index.js';
import { serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const table = `reconcile_inbox_${process.pid}`;
const ledger = `reconcile_ledger_${process.pid}`;
const CARD = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 };

let sandbox: Sandbox;
let running: RunningSandbox;
let provider: ProviderClient;
const pools: pg.Pool[] = [];
const served: Served[] = [];
// Two instances of one application: the same keys, each its own pool and inbox over one table.
const instances: { receiver: CallbackReceiver<Context>; url: string }[] = [];

beforeAll(async () => {
  sandbox = createSandbox({ callbackRetry: { attempts: 3, backoffMs: 10 } });
  running = await sandbox.listen({ port: 0, host: '127.0.0.1' });
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  provider = new ProviderClient({ baseUrl: running.url, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 });
  for (const name of ['a', 'b']) {
    const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 3 });
    pool.on('error', () => undefined);
    pools.push(pool);
    if (name === 'a') {
      await createPostgresInboxTable({ pool, table });
      await pool.query(`DROP TABLE IF EXISTS ${ledger}`);
      await pool.query(`CREATE TABLE ${ledger} (id serial PRIMARY KEY, tracking_code text NOT NULL, status text NOT NULL, source text NOT NULL, instance text NOT NULL)`);
    }
    const receiver = createCallbackReceiver<Context>({ apiKey, secretKey, merchantId: 'shop', inbox: createPostgresInbox({ pool, table }), onError: () => undefined });
    // Slow enough for the other instance's copy to arrive while this one holds the key.
    receiver.on('creditCard', async (callback, { client }) => {
      await client.query(`INSERT INTO ${ledger} (tracking_code, status, source, instance) VALUES ($1, $2, $3, $4)`, [callback.payload.tracking_code, callback.payload.status, callback.source, name]);
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    const instance = await serveNode(receiver.nodeHandler);
    served.push(instance);
    instances.push({ receiver, url: instance.url });
  }
}, 30_000);

afterAll(async () => {
  await Promise.all(served.map((each) => each.close()));
  await running.close();
  await pools[0]?.query(`DROP TABLE IF EXISTS ${table}, ${ledger}`);
  await Promise.all(pools.map((pool) => pool.end()));
});

const instance = (index: number) => {
  const found = instances[index];
  if (found === undefined) throw new Error('the instances start in beforeAll');
  return found;
};

/** A card payment settled while the merchant's endpoint was down until the service stopped retrying. */
async function settledUnseen(status: string): Promise<{ code: string; deliveryId: string }> {
  sandbox.setCallbackUrls({ creditCard: instance(0).url });
  const { data } = await provider.creditCard.createPayment(CARD);
  const { callback } = await sandbox.settle(data.tracking_code, status, { failDeliveries: true });
  expect(callback?.delivered).toBe(false);
  expect(callback?.attempts.map((attempt) => attempt.httpStatus)).toEqual([undefined, undefined, undefined]);
  return { code: data.tracking_code, deliveryId: callback?.id ?? '' };
}

async function applications(code: string): Promise<{ status: string; source: string }[]> {
  const { rows } = await pools[0]!.query<{ status: string; source: string }>(`SELECT status, source FROM ${ledger} WHERE tracking_code = $1 ORDER BY id`, [code]);
  return rows;
}

const results = (list: readonly ReconcileResult[]) => list.map(({ trackingCode, result, status }) => ({ trackingCode, result, status }));

describe('receiver.reconcile over PostgreSQL, two instances', { timeout: 20_000 }, () => {
  test('a card payment settled while every delivery failed is applied once; a second reconcile changes nothing; the redelivered callback answers 200 and applies nothing', async () => {
    const { code, deliveryId } = await settledUnseen('success');
    expect(await applications(code)).toEqual([]);
    expect(results(await instance(0).receiver.reconcile({ provider, trackingCodes: [code] }))).toEqual([{ trackingCode: code, result: 'applied', status: 'success' }]);
    expect(results(await instance(1).receiver.reconcile({ provider, trackingCodes: [code] }))).toEqual([{ trackingCode: code, result: 'duplicate', status: 'success' }]);
    // The endpoint is back: the service's redelivery, genuinely signed, is acknowledged as a duplicate.
    const redelivery = await sandbox.redeliver(deliveryId);
    expect(redelivery.attempts.map((attempt) => attempt.httpStatus)).toEqual([200]);
    expect(await applications(code)).toEqual([{ status: 'success', source: 'status' }]);
  });

  test('reconcile on one instance while the late callback arrives on the other: applied once', async () => {
    const { code, deliveryId } = await settledUnseen('failed');
    sandbox.setCallbackUrls({ creditCard: instance(0).url });
    const [reconciled, redelivery] = await Promise.all([instance(1).receiver.reconcile({ provider, trackingCodes: [code] }), sandbox.redeliver(deliveryId)]);
    expect(redelivery.attempts.map((attempt) => attempt.httpStatus)).toEqual([200]);
    expect(['applied', 'duplicate']).toContain(reconciled[0]?.result);
    expect((await applications(code)).map((row) => row.status)).toEqual(['failed']);
  });

  test('two reconcile calls racing on two instances over the same codes apply each once', async () => {
    const codes = [(await settledUnseen('success')).code, (await settledUnseen('cancelled')).code, (await settledUnseen('failed')).code];
    const [first, second] = await Promise.all([instance(0).receiver.reconcile({ provider, trackingCodes: codes }), instance(1).receiver.reconcile({ provider, trackingCodes: [...codes].reverse() })]);
    for (const code of codes) {
      const outcomes = [...first, ...second].filter((each) => each.trackingCode === code).map((each) => each.result).sort();
      expect(outcomes).toEqual(['applied', 'duplicate']);
      expect(await applications(code)).toHaveLength(1);
    }
  });

  test('a pending payment is reported and left alone; a refunded one applies success, then refunded', async () => {
    const { data: pending } = await provider.creditCard.createPayment(CARD);
    const { code: refunded } = await settledUnseen('success');
    await sandbox.settle(refunded, 'refunded');
    expect(results(await instance(0).receiver.reconcile({ provider, trackingCodes: [pending.tracking_code, refunded] }))).toEqual([
      { trackingCode: pending.tracking_code, result: 'pending', status: 'pending' },
      { trackingCode: refunded, result: 'applied', status: 'refunded' },
    ]);
    expect(await applications(pending.tracking_code)).toEqual([]);
    expect(await applications(refunded)).toEqual([{ status: 'success', source: 'status' }, { status: 'refunded', source: 'status' }]);
  });
});
