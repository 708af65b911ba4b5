import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { signCallback } from '../../../src/webhooks/index.js';
import type { CallbackJob } from '../../../src/webhooks/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { applications, applyingReceiver, createLedger, enqueuingReceiver, startWorkerProcess, waitFor } from '../../helpers/deferred.js';
import type { Behaviour } from '../../helpers/deferred.js';
import { startRedisServer } from '../../helpers/redis.js';
import type { RedisServer } from '../../helpers/redis.js';
import { deliver, serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

// Deferred callbacks on BullMQ 6 with a real Redis (Debian's redis-server, started here on a free
// loopback port; .ci/run installs it) and the PostgreSQL inbox of the postgres project, so that
// once-only holds across the worker processes.
const LEDGER = 'deferred_bullmq_ledger';
const QUEUE = 'payorch-callbacks';
const KILL_QUEUE = 'payorch-callbacks-kill';
const url = inject('postgresUrl');

let redis: RedisServer;
let pool: pg.Pool;
let queue: Queue<CallbackJob>;
let killQueue: Queue<CallbackJob>;
const workers: Worker<CallbackJob>[] = [];
let served: Served;
const behaviours = new Map<string, Behaviour>();
let applying: ReturnType<typeof applyingReceiver>;

const connection = () => ({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null, retryStrategy: () => 100 });

function work(name: string): Worker<CallbackJob> {
  const worker = new Worker<CallbackJob>(name, async (job) => applying.receiver.apply(job.data), { connection: connection(), lockDuration: 1000, stalledInterval: 500 });
  worker.on('error', () => undefined);
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  redis = await startRedisServer();
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  await createLedger(pool, LEDGER);
  // The receiving side's queues fail at once while Redis is down, instead of holding the answer.
  queue = new Queue<CallbackJob>(QUEUE, { connection: { ...connection(), enableOfflineQueue: false } });
  killQueue = new Queue<CallbackJob>(KILL_QUEUE, { connection: { ...connection(), enableOfflineQueue: false } });
  for (const each of [queue, killQueue]) each.on('error', () => undefined);
  await Promise.all([queue.waitUntilReady(), killQueue.waitUntilReady()]);
  applying = applyingReceiver(pool, LEDGER, (code) => behaviours.get(code) ?? {});
  await work(QUEUE).waitUntilReady();
  const receiver = enqueuingReceiver(async (job) => {
    const target = job.payload['tracking_code'] === 'MAN-bmkill05-1763812000' ? killQueue : queue;
    await target.add('callback', job, { attempts: 5, backoff: { type: 'fixed', delay: 0 } });
  });
  served = await serveNode(receiver.nodeHandler);
}, 30_000);

afterAll(async () => {
  await served.close();
  await Promise.all(workers.map((worker) => worker.close(true)));
  await Promise.all([queue.close(), killQueue.close()]);
  await redis.close();
  await pool.query(`DROP TABLE IF EXISTS ${LEDGER}`);
  await pool.end();
}, 30_000);

function deposit(trackingCode: string, timestamp?: number) {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, timestamp === undefined ? PROVIDER : { ...PROVIDER, timestamp });
}

const appliedOnce = (code: string) => async () => (await applications(pool, LEDGER, code)).length > 0;

test('answers in milliseconds while the handler takes seconds, and the callback is applied once', async () => {
  const code = 'MAN-bmslow01-1763812000';
  behaviours.set(code, { handlerMs: 1500 });
  const started = performance.now();
  expect(await deliver(served.url, deposit(code))).toEqual({ status: 200, body: { success: true } });
  expect(performance.now() - started).toBeLessThan(500);
  expect(await applications(pool, LEDGER, code)).toEqual([]);
  await waitFor(appliedOnce(code), 8000, 'the slow handler to commit');
  expect(await applications(pool, LEDGER, code)).toEqual([{ status: 'completed', worker: 'test' }]);
});

test('a handler that fails twice is retried by BullMQ and applied exactly once', async () => {
  const code = 'MAN-bmfail02-1763812000';
  behaviours.set(code, { failures: 2 });
  expect((await deliver(served.url, deposit(code))).status).toBe(200);
  await waitFor(appliedOnce(code), 8000, 'the third attempt to commit');
  expect(applying.attempts.get(code)).toBe(3);
  expect(await applications(pool, LEDGER, code)).toHaveLength(1);
});

test('duplicates and a re-signed copy become four jobs and one application', async () => {
  const code = 'MAN-bmdup03-1763812000';
  const first = deposit(code);
  const resigned = deposit(code, Math.floor(Date.now() / 1000) + 1);
  const answers = await Promise.all([first, first, first, resigned].map((delivery) => deliver(served.url, delivery)));
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
  await waitFor(async () => (await queue.getJobCounts('wait', 'active', 'delayed')).wait === 0 && (await queue.getActiveCount()) === 0, 8000, 'every copy to be worked');
  expect(await applications(pool, LEDGER, code)).toHaveLength(1);
});

test('a Redis that is down answers 500 and records nothing; after its restart the redelivery is queued and applied', async () => {
  const code = 'MAN-bmdown04-1763812000';
  const delivery = deposit(code);
  await redis.stop();
  try {
    expect(await deliver(served.url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_queued' } });
  } finally {
    await redis.start();
  }
  expect(await applications(pool, LEDGER, code)).toEqual([]);
  await waitFor(async () => (await deliver(served.url, delivery)).status === 200, 5000, 'the queue to take the redelivery');
  await waitFor(appliedOnce(code), 8000, 'the redelivery to be applied');
  expect(await applications(pool, LEDGER, code)).toHaveLength(1);
}, 20_000);

test('a worker killed with SIGKILL mid-handler: BullMQ finds the job stalled, another worker applies it exactly once', async () => {
  const code = 'MAN-bmkill05-1763812000';
  const child = startWorkerProcess({ WORKER_ENGINE: 'bullmq', WORKER_QUEUE: KILL_QUEUE, WORKER_PG_URL: url, WORKER_REDIS_PORT: String(redis.port), WORKER_LEDGER: LEDGER, WORKER_HANDLER_MS: '30000' });
  try {
    await child.line('ready', 10_000);
    expect((await deliver(served.url, deposit(code))).status).toBe(200);
    await child.line(`started ${code}`, 8000);
  } finally {
    await child.kill();
  }
  await work(KILL_QUEUE).waitUntilReady();
  await waitFor(appliedOnce(code), 10_000, 'the stalled job to be applied by the other worker');
  expect(await applications(pool, LEDGER, code)).toEqual([{ status: 'completed', worker: 'test' }]);
}, 30_000);
