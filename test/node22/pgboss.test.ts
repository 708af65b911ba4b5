import pg from 'pg';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import * as pgbossExample from '../../examples/webhooks/pgboss.js';
import { POSTGRES_TABLES_SQL } from '../../examples/webhooks/order-tables.js';
import { signCallback } from '../../src/webhooks/index.js';
import type { CallbackJob } from '../../src/webhooks/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { enqueuingReceiver, waitFor } from '../helpers/deferred.js';
import { deliver } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';
import { startCluster } from '../postgres/cluster.js';
import type { Cluster } from '../postgres/cluster.js';

// examples/webhooks/pgboss.ts, the recipe for pg-boss 12 (what `npm install pg-boss` gives on
// Node 22.12+), against a real PostgreSQL of its own: a deposit credited once, a changed amount
// refused, and a dead letter kept past pg-boss's own maintenance, then replayed.
let cluster: Cluster;
let pool: pg.Pool;
let receiver: Awaited<ReturnType<typeof pgbossExample.start>>;
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  cluster = await startCluster();
  pool = new pg.Pool({ connectionString: cluster.url });
  for (const statement of POSTGRES_TABLES_SQL) await pool.query(statement);
  receiver = await pgbossExample.start({ ...PROVIDER, connectionString: cluster.url, port: 0 });
}, 60_000);
afterAll(async () => {
  await receiver.close();
  await pool.end();
  cluster.stop();
});

const order = (code: string, user: string, amount: number, maxAmount: number) =>
  pool.query("INSERT INTO orders (tracking_code, kind, user_id, amount, max_amount) VALUES ($1, 'deposit', $2, $3, $4)", [code, user, amount, maxAmount]);
const ledger = async () => (await pool.query<Record<string, unknown>>('SELECT tracking_code, user_id, amount::float AS amount FROM ledger ORDER BY tracking_code')).rows;

test('credits a deposit once, though delivered twice; a genuine signature over a changed amount moves nothing', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const code = `MAN-n22pb01-${seconds - 60}`;
  const altered = `MAN-n22pb02-${seconds - 60}`;
  await order(code, 'u-n22', 200, 500);
  await order(altered, 'u-n22', 200, 500);
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: 'u-n22', amount: 250 }, PROVIDER);
  const genuine = signCallback({ ...unsigned.deposit, tracking_code: altered, user_id: 'u-n22', amount: 250 }, PROVIDER);
  const changed = { headers: genuine.headers, body: JSON.stringify({ ...(JSON.parse(genuine.body) as object), amount: 500.01 }) };
  for (const each of [delivery, delivery, changed]) expect(await deliver(receiver.url, each)).toEqual({ status: 200, body: { success: true } });
  await waitFor(async () => (await ledger()).length === 1, 10_000, 'the deposit to be credited');
  const refused = () => logged.mock.calls.some((call) => call.some((part) => String(part).includes(`confirm refused deposit.completed ${altered}`)));
  await waitFor(refused, 10_000, 'the changed callback to be refused');
  expect(await ledger()).toEqual([{ tracking_code: code, user_id: 'u-n22', amount: 250 }]);
}, 30_000);

test('a dead letter is kept past pg-boss’s retention: backdated a month and supervised, it is still replayed and applied once', async () => {
  const code = `MAN-n22dead-${seconds - 60}`;
  const jobs: CallbackJob[] = [];
  const delivery = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: 'u-n22dead', amount: 75 }, PROVIDER);
  await enqueuingReceiver((job) => Promise.resolve(void jobs.push(job))).handle(new Request('https://receiver.test/', { method: 'POST', headers: delivery.headers, body: delivery.body }));
  // No order row yet: confirm refuses it, and without retries it is a dead letter at once.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  await receiver.boss.send(pgbossExample.QUEUE, jobs[0]!, { retryLimit: 0 });
  const kept = async () => (await pool.query("SELECT job_id FROM payorch_dead_letters WHERE job->'payload'->>'tracking_code' = $1", [code])).rows;
  const deadJob = async () => (await pool.query<{ state: string }>("SELECT state FROM pgboss.job WHERE name = $1 AND data->'payload'->>'tracking_code' = $2", [pgbossExample.DEAD_LETTERS, code])).rows;
  await waitFor(async () => (await kept()).length === 1 && (await deadJob())[0]?.state === 'completed', 15_000, 'the dead letter to be kept');

  const month = "interval '31 days'";
  await pool.query(
    `UPDATE pgboss.job SET created_on = created_on - ${month}, start_after = start_after - ${month}, keep_until = keep_until - ${month}, completed_on = completed_on - ${month}, started_on = started_on - ${month} WHERE data->'payload'->>'tracking_code' = $1`,
    [code],
  );
  await pool.query(`UPDATE payorch_dead_letters SET dead_at = dead_at - ${month}`);
  for (const queue of [pgbossExample.QUEUE, pgbossExample.DEAD_LETTERS]) await receiver.boss.supervise(queue);
  // pg-boss's own copy is gone with its retention; the table's is not.
  expect(await deadJob()).toEqual([]);
  expect(await kept()).toHaveLength(1);

  await order(code, 'u-n22dead', 75, 75);
  expect(await pgbossExample.replayDeadLetters(receiver.boss, receiver.pool)).toBe(1);
  await waitFor(async () => (await ledger()).some((row) => row['tracking_code'] === code), 15_000, 'the replayed dead letter to be credited');
  expect(await kept()).toEqual([]);
}, 45_000);
