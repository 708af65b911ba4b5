import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import * as bullmqExample from '../../examples/webhooks/bullmq.js';
import * as pgbossExample from '../../examples/webhooks/pgboss.js';
import { signCallback } from '../../src/webhooks/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { waitFor } from '../helpers/deferred.js';
import { startRedisServer } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';
import { deliver } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// The deferred recipes of docs/webhooks.md as they are written (examples/webhooks/pgboss.ts and
// bullmq.ts), against real PostgreSQL and a real Redis: a callback answered 200, then credited
// once, its duplicate too; a job that fails for good is a dead letter that replayFailed runs again. The servers are why this runs here and not in `npm run examples`.
const url = inject('postgresUrl');
let pool: pg.Pool;
let redis: RedisServer;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url });
  pool.on('error', () => undefined);
  redis = await startRedisServer();
}, 20_000);
afterAll(async () => {
  await redis.close();
  await pool.query('DROP TABLE IF EXISTS balances');
  await pool.end();
});

async function balanceOf(user: string): Promise<number | undefined> {
  const { rows } = await pool.query<{ amount: string }>('SELECT amount FROM balances WHERE user_id = $1', [user]).catch(() => ({ rows: [] }));
  return rows[0] === undefined ? undefined : Number(rows[0].amount);
}

const examples = [
  ['pgboss.ts', (port: number) => pgbossExample.start({ ...PROVIDER, connectionString: url, port })],
  ['bullmq.ts', (port: number) => bullmqExample.start({ ...PROVIDER, connectionString: url, redis: { host: '127.0.0.1', port: redis.port }, port })],
] as const;

test.each(examples)('examples/webhooks/%s answers 200 at once and credits a deposit once, though it is delivered twice', async (name, start) => {
  const receiver = await start(0);
  try {
    const user = `u-${name}`;
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: `MAN-ex${name.slice(0, 4)}-1763812000`, user_id: user, amount: 250 }, PROVIDER);
    expect(await deliver(receiver.url, delivery)).toEqual({ status: 200, body: { success: true } });
    expect(await deliver(receiver.url, delivery)).toEqual({ status: 200, body: { success: true } });
    await waitFor(async () => (await balanceOf(user)) === 250, 8000, 'the deposit to be credited');
    // Both jobs worked: the second found the callback applied.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await balanceOf(user)).toBe(250);
  } finally {
    await receiver.close();
  }
}, 20_000);

test('the BullMQ recipe replays its failed set: a job that failed for good runs again, and a forged one still applies nothing', async () => {
  const receiver = await bullmqExample.start({ ...PROVIDER, connectionString: url, redis: { host: '127.0.0.1', port: redis.port }, port: 0 });
  try {
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-exdead-1763812000', user_id: 'u-dead', amount: 40 }, PROVIDER);
    // A job as a broken producer wrote it: the signature of another callback. It fails every attempt.
    const genuine = JSON.parse(delivery.body) as Record<string, unknown>;
    const job = await receiver.queue.add('callback', {
      version: 1, account: PROVIDER.apiKey, kind: 'deposit', event: 'deposit.completed', payload: genuine, receivedAt: Date.now(),
      signature: { hash: '0'.repeat(64), timestamp: genuine['timestamp'] as number, in: 'headers' },
    }, { attempts: 1 });
    await waitFor(async () => (await job.getState()) === 'failed', 8000, 'the forged job to fail');
    expect(await bullmqExample.replayFailed(receiver.queue)).toBe(1);
    await waitFor(async () => (await job.getState()) === 'failed' && (await receiver.queue.getJob(job.id ?? ''))?.attemptsMade === 2, 8000, 'the replayed job to fail again');
    expect(await balanceOf('u-dead')).toBeUndefined();
  } finally {
    await receiver.close();
  }
}, 20_000);
