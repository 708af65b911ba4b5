import { Queue, Worker } from 'bullmq';
import type { CallbackJob } from '../../../src/webhooks/index.js';
import { deferredScenarios } from '../../helpers/deferred-scenarios.js';
import { startRedisServer } from '../../helpers/redis.js';
import type { RedisServer } from '../../helpers/redis.js';

// Deferred callbacks on BullMQ 6 with a real Redis (Debian's redis-server, started here on a free
// loopback port; npm test installs it) and the PostgreSQL inbox, so that once-only holds across
// the worker processes.
const QUEUE = 'payorch-callbacks';
const KILL_QUEUE = 'payorch-callbacks-kill';

let redis: RedisServer;
let queue: Queue<CallbackJob>;
let killQueue: Queue<CallbackJob>;
const workers: Worker<CallbackJob>[] = [];

const connection = () => ({ host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null, retryStrategy: () => 100 });

async function work(name: string, apply: (job: CallbackJob) => Promise<unknown>): Promise<void> {
  const worker = new Worker<CallbackJob>(name, async (job) => apply(job.data), { connection: connection(), lockDuration: 1000, stalledInterval: 500 });
  worker.on('error', () => undefined);
  workers.push(worker);
  await worker.waitUntilReady();
}

deferredScenarios({
  name: 'BullMQ',
  prefix: 'bm',
  store: 'Redis',
  recovers: 'finds the job stalled',
  async start(apply, killCode) {
    redis = await startRedisServer();
    // The receiving side's queues fail at once while Redis is down, instead of holding the answer.
    queue = new Queue<CallbackJob>(QUEUE, { connection: { ...connection(), enableOfflineQueue: false } });
    killQueue = new Queue<CallbackJob>(KILL_QUEUE, { connection: { ...connection(), enableOfflineQueue: false } });
    for (const each of [queue, killQueue]) each.on('error', () => undefined);
    await Promise.all([queue.waitUntilReady(), killQueue.waitUntilReady()]);
    await work(QUEUE, apply);
    return async (job) => {
      const target = job.payload['tracking_code'] === killCode ? killQueue : queue;
      await target.add('callback', job, { attempts: 5, backoff: { type: 'fixed', delay: 0 } });
    };
  },
  async stop() {
    await Promise.all(workers.map((worker) => worker.close(true)));
    await Promise.all([queue.close(), killQueue.close()]);
    await redis.close();
  },
  drained: async () => (await queue.getJobCounts('wait', 'active', 'delayed')).wait === 0 && (await queue.getActiveCount()) === 0,
  down: () => redis.stop(),
  up: () => redis.start(),
  killWorker: () => ({ WORKER_ENGINE: 'bullmq', WORKER_QUEUE: KILL_QUEUE, WORKER_REDIS_PORT: String(redis.port) }),
  workKillQueue: (apply) => work(KILL_QUEUE, apply),
});
