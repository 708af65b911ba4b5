// A callback whose first handler moved money and whose second threw, answered 500, against a real
// PostgreSQL: two receiver instances (each its own pool and inbox over one table, on real
// sockets) get the other end status and the redelivery. The transaction rolled the first attempt
// back whole, so the money moves once whichever end comes first.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createCallbackReceiver, ProviderClient, signCallback } from '../../src/index.js';
import type { CallbackReceiver } from '../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import type { RunningSandbox, Sandbox } from '../../src/tools/sandbox/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver, serveNode } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const OK = { status: 200, body: { success: true } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
const table = `partial_inbox_${process.pid}`;
const money = `partial_money_${process.pid}`;
const unpaid = (status: string): boolean => status === 'rejected' || status === 'failed' || status === 'canceled';

let sandbox: Sandbox;
let running: RunningSandbox;
let provider: ProviderClient;
const pools: pg.Pool[] = [];
const served: Served[] = [];
const instances: { receiver: CallbackReceiver<Context>; url: string }[] = [];
// The tracking codes whose second handler throws on its next run.
const failing = new Set<string>();

beforeAll(async () => {
  sandbox = createSandbox({ seed: 'partial-attempts' });
  running = await sandbox.listen({ port: 0, host: '127.0.0.1' });
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  provider = new ProviderClient({ baseUrl: running.url, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 });
  for (let index = 0; index < 2; index += 1) {
    const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 3 });
    pool.on('error', () => undefined);
    pools.push(pool);
    if (index === 0) {
      await createPostgresInboxTable({ pool, table });
      await pool.query(`CREATE TABLE ${money} (id serial PRIMARY KEY, tracking_code text NOT NULL, move text NOT NULL)`);
    }
    const receiver = createCallbackReceiver<Context>({ apiKey, secretKey, merchantId: 'shop', inbox: createPostgresInbox({ pool, table }), onError: () => undefined });
    const move = (client: pg.PoolClient, trackingCode: string, what: string) => client.query(`INSERT INTO ${money} (tracking_code, move) VALUES ($1, $2)`, [trackingCode, what]);
    // The guide's refund-once handler, then a second handler (an audit, a notification) that may throw.
    receiver.on('withdrawal', async (callback, { appliedStatuses, client }) => {
      const { status, tracking_code: trackingCode } = callback.payload;
      if (unpaid(status) && !appliedStatuses.some(unpaid)) await move(client, trackingCode, 'refund');
    });
    // A card: credited on success unless refunded before, taken back on refunded once credited.
    receiver.on('creditCard', async (callback, { appliedStatuses, client }) => {
      const { status, tracking_code: trackingCode } = callback.payload;
      if (status === 'success' && !appliedStatuses.includes('refunded')) await move(client, trackingCode, 'credit');
      if (status === 'refunded' && appliedStatuses.includes('success')) await move(client, trackingCode, 'take back');
    });
    const second = (callback: { readonly payload: { readonly tracking_code: string } }): void => {
      if (failing.delete(callback.payload.tracking_code)) throw new Error('the second handler failed');
    };
    receiver.on('withdrawal', second).on('creditCard', second);
    const instance = await serveNode(receiver.nodeHandler);
    served.push(instance);
    instances.push({ receiver, url: instance.url });
  }
}, 30_000);

afterAll(async () => {
  await Promise.all(served.map((each) => each.close()));
  await running.close();
  await pools[0]?.query(`DROP TABLE IF EXISTS ${table}, ${money}`);
  await Promise.all(pools.map((pool) => pool.end()));
});

const instance = (index: number) => {
  const found = instances[index];
  if (found === undefined) throw new Error('the instances start in beforeAll');
  return found;
};

async function moves(trackingCode: string): Promise<string[]> {
  const { rows } = await pools[0]!.query<{ move: string }>(`SELECT move FROM ${money} WHERE tracking_code = $1 ORDER BY id`, [trackingCode]);
  return rows.map((row) => row.move);
}

describe('a second handler that throws on the first end status', () => {
  test.each([
    ['rejected', 'failed'],
    ['failed', 'rejected'],
  ])('a withdrawal ended %s (second handler throwing), then %s on another instance, is refunded once', async (first, second) => {
    const trackingCode = `WIT-partial${first}-${Math.floor(Date.now() / 1000) - 60}`;
    const end = (status: string) => signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status }, sandbox.accounts.provider);
    failing.add(trackingCode);
    expect(await deliver(instance(0).url, end(first))).toEqual(NOT_APPLIED);
    expect(await deliver(instance(1).url, end(second))).toEqual(OK);
    expect(await deliver(instance(1).url, end(first))).toEqual(OK);
    expect(await deliver(instance(0).url, end(second))).toEqual(OK);
    expect(await moves(trackingCode)).toEqual(['refund']);
  });

  test('a card payment whose success callback fails in its second handler, then read as refunded by another instance, is credited and taken back once', async () => {
    const { data } = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
    const code = data.tracking_code;
    const success = signCallback({ ...unsigned.creditCard, tracking_code: code, amount: 150 }, sandbox.accounts.provider);
    failing.add(code);
    expect(await deliver(instance(0).url, success)).toEqual(NOT_APPLIED);
    await sandbox.settle(code, 'success');
    await sandbox.settle(code, 'refunded');
    expect(await instance(1).receiver.reconcile({ provider, trackingCodes: [code] })).toEqual([{ trackingCode: code, result: 'applied', status: 'refunded' }]);
    expect(await deliver(instance(0).url, success)).toEqual(OK);
    expect(await moves(code)).toEqual(['credit', 'take back']);
  });

  test('a card payment read as refunded while its success fails in the second handler, then its success callback on another instance, is credited and taken back once', async () => {
    const { data } = await provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 });
    const code = data.tracking_code;
    await sandbox.settle(code, 'success');
    await sandbox.settle(code, 'refunded');
    failing.add(code);
    const [read] = await instance(0).receiver.reconcile({ provider, trackingCodes: [code] });
    expect(read).toMatchObject({ trackingCode: code, result: 'failed' });
    const success = signCallback({ ...unsigned.creditCard, tracking_code: code, amount: 150 }, sandbox.accounts.provider);
    expect(await deliver(instance(1).url, success)).toEqual(OK);
    expect(await instance(0).receiver.reconcile({ provider, trackingCodes: [code] })).toEqual([{ trackingCode: code, result: 'applied', status: 'refunded' }]);
    expect(await moves(code)).toEqual(['credit', 'take back']);
  });
});
