import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import * as bullmqExample from '../../examples/webhooks/bullmq.js';
import * as pgbossExample from '../../examples/webhooks/pgboss.js';
import { signCallback } from '../../src/webhooks/index.js';
import type { CallbackJob } from '../../src/webhooks/index.js';
import { unsigned, withUnsigned } from '../helpers/callbacks.js';
import { enqueuingReceiver, waitFor } from '../helpers/deferred.js';
import { ledgerDatabase } from '../helpers/hyperdrive.js';
import type { LedgerDatabase } from '../helpers/hyperdrive.js';
import { startRedisServer } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';
import { deliver } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

// The deferred recipes of docs/deferred.md as they are written (examples/webhooks/pgboss.ts and
// bullmq.ts), against real PostgreSQL and a real Redis: a callback answered 200, then credited
// once, its duplicate too; a genuine signature over a changed user or amount moves nothing; a dead
// letter is kept until replayed. The servers are why this runs here and not in `npm run examples`.
// A database of its own: other files use the same table names.
let database: LedgerDatabase;
let redis: RedisServer;
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  database = await ledgerDatabase('payorch_deferred_recipes');
  redis = await startRedisServer();
}, 20_000);
afterAll(async () => {
  await redis.close();
  await database.drop();
});

async function balanceOf(user: string): Promise<number | undefined> {
  const { rows } = await database.pool.query<{ amount: string }>('SELECT amount FROM balances WHERE user_id = $1', [user]);
  return rows[0] === undefined ? undefined : Number(rows[0].amount);
}
const connectionString = (): string => database.hyperdriveUrl;

const examples = [
  ['pgboss.ts', 'pb', () => pgbossExample.start({ ...PROVIDER, connectionString: connectionString(), port: 0 })],
  ['bullmq.ts', 'bq', () => bullmqExample.start({ ...PROVIDER, connectionString: connectionString(), redis: redis.connection, port: 0 })],
] as const;

test.each(examples)('examples/webhooks/%s answers 200 at once and credits a deposit once, though it is delivered twice', async (_name, tag, start) => {
  const receiver = await start();
  try {
    const user = `u-${tag}`;
    const code = `MAN-ex${tag}01-${seconds - 60}`;
    await database.order(code, user, 200, 500);
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount: 250 }, PROVIDER);
    expect(await deliver(receiver.url, delivery)).toEqual({ status: 200, body: { success: true } });
    expect(await deliver(receiver.url, delivery)).toEqual({ status: 200, body: { success: true } });
    await waitFor(async () => (await balanceOf(user)) === 250, 8000, 'the deposit to be credited');
    // Both jobs worked: the second found the callback applied.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await balanceOf(user)).toBe(250);
    expect(await database.ledgerOf(user)).toEqual([{ tracking_code: code, amount: 250, balance: 250 }]);
  } finally {
    await receiver.close();
  }
}, 20_000);

// A genuine signature over a changed unsigned field: answered 200 (queued), then `confirm` fails
// the job on every attempt, which the engine retries and at last keeps as a dead letter.
test.each(examples)('examples/webhooks/%s queues a genuine signature over a changed user_id or amount, and its worker moves no money', async (name, tag, start) => {
  const receiver = await start();
  try {
    const user = `u-${tag}alt`;
    const codes = [`MAN-ex${tag}us-${seconds - 60}`, `MAN-ex${tag}am-${seconds - 60}`];
    for (const code of codes) await database.order(code, user, 200, 500);
    const before = await database.moneyRows();
    // The receiver tells of each refusal (no onError here: it logs); seen, the attempt has failed.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (const [code, change] of [[codes[0]!, { user_id: 'u-thief' }], [codes[1]!, { amount: 500.01 }]] as const) {
      const genuine = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount: 250 }, PROVIDER);
      const changed = withUnsigned(genuine, change);
      expect(await deliver(receiver.url, changed)).toEqual({ status: 200, body: { success: true } });
    }
    const refused = (code: string) => logged.mock.calls.some((call) => call.some((part) => String(part).includes(`confirm refused deposit.completed ${code}; nothing was applied`)));
    await waitFor(() => codes.every(refused), 10_000, `both jobs to fail an attempt on ${name}`);
    expect(await database.moneyRows()).toEqual(before);
    expect(await database.keysOf(codes[0]!)).toEqual([]);
  } finally {
    await receiver.close();
  }
}, 20_000);

test('a pg-boss dead letter is kept past pg-boss’s retention: its rows aged past every retention and pg-boss’s maintenance run, it is still replayed and applied once', async () => {
  const receiver = await pgbossExample.start({ ...PROVIDER, connectionString: connectionString(), port: 0 });
  try {
    const code = `MAN-expbdead-${seconds - 60}`;
    // A genuine job, as the recipe's receiver queues it, for a deposit whose order row is missing
    // (saved late): confirm refuses it, and sent without retries it is a dead letter at once.
    const jobs: CallbackJob[] = [];
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: 'u-pbdead', amount: 75 }, PROVIDER);
    await enqueuingReceiver((job) => Promise.resolve(void jobs.push(job))).handle(new Request('https://receiver.test/', { method: 'POST', headers: delivery.headers, body: delivery.body }));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // As the adapter keeps a job in pg-boss: its JSON as text.
    await receiver.boss.send('payorch-callbacks', { job: JSON.stringify(jobs[0]) }, { retryLimit: 0 });
    const kept = async () => (await receiver.queue.deadLetters.list()).deadLetters.filter((deadLetter) => deadLetter.trackingCode === code);
    await waitFor(async () => (await kept()).length === 1, 10_000, 'the dead letter to be kept');
    expect((await kept())[0]).toMatchObject({ attempts: 1, lastError: expect.stringContaining(`confirm refused deposit.completed ${code}`) as unknown });

    // A year on: every row pg-boss has of it is that much older, and pg-boss's own maintenance
    // (retention and deletion) runs on both queues. pg-boss's rows are gone; the table's is not.
    const year = "interval '400 days'";
    await database.pool.query(
      `UPDATE pgboss.job SET created_on = created_on - ${year}, start_after = start_after - ${year}, keep_until = keep_until - ${year}, completed_on = completed_on - ${year}, started_on = started_on - ${year} WHERE strpos(data->>'job', $1) > 0`,
      [code],
    );
    for (const queue of ['payorch-callbacks', 'payorch-callbacks-dead']) await receiver.boss.supervise(queue);
    expect((await database.pool.query("SELECT 1 FROM pgboss.job WHERE strpos(data->>'job', $1) > 0", [code])).rows).toEqual([]);
    expect(await kept()).toHaveLength(1);

    // The order row is there now: the replay applies it once, and the dead letter is gone.
    await database.order(code, 'u-pbdead', 75);
    expect(await receiver.queue.deadLetters.replay()).toEqual({ replayed: 1, remaining: 0 });
    await waitFor(async () => (await balanceOf('u-pbdead')) === 75, 8000, 'the replayed dead letter to be credited');
    expect(await kept()).toEqual([]);
    expect(await receiver.queue.deadLetters.replay()).toEqual({ replayed: 0, remaining: 0 });
  } finally {
    await receiver.close();
  }
}, 30_000);

test('the BullMQ recipe keeps a dead letter until it is replayed: a deposit whose order row came late is credited once, and a copy changed in the queue still applies nothing', async () => {
  const receiver = await bullmqExample.start({ ...PROVIDER, connectionString: connectionString(), redis: redis.connection, port: 0 });
  try {
    const code = `MAN-exdead-${seconds - 60}`;
    // A genuine job, as the recipe's receiver queues it, for a deposit whose order row is missing
    // (saved late): confirm refuses it. Added with one attempt, as if its retries had run out.
    const jobs: CallbackJob[] = [];
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: 'u-dead', amount: 40 }, PROVIDER);
    await enqueuingReceiver((job) => Promise.resolve(void jobs.push(job))).handle(new Request('https://receiver.test/', { method: 'POST', headers: delivery.headers, body: delivery.body }));
    const genuine = jobs[0] as CallbackJob;
    await receiver.callbacks.queue.add('callback', genuine, { attempts: 1, removeOnFail: false });
    // A copy whose amount was raised in Redis: its seal no longer matches, and it is a dead letter
    // after one attempt, whatever the attempts left.
    await receiver.callbacks.enqueue({ ...genuine, payload: { ...genuine.payload, amount: 4000 } } as CallbackJob);
    const dead = async () => (await receiver.callbacks.deadLetters.list()).deadLetters;
    await waitFor(async () => (await dead()).length === 2, 8000, 'both jobs to be dead letters');

    await database.order(code, 'u-dead', 40);
    expect(await receiver.callbacks.deadLetters.replay()).toEqual({ replayed: 2, remaining: 0 });
    await waitFor(async () => (await balanceOf('u-dead')) === 40 && (await dead()).length === 1, 8000, 'the genuine job to be credited and the changed one to be a dead letter again');
    // Dead again after its replay: both lives counted, the first kept in its history.
    expect((await dead())[0]).toMatchObject({ trackingCode: code, attempts: 2, history: [{ attempts: 1 }], lastError: expect.stringContaining('CallbackJobError') as string });
    expect(await database.ledgerOf('u-dead')).toEqual([{ tracking_code: code, amount: 40, balance: 40 }]);
  } finally {
    await receiver.close();
  }
}, 20_000);
