import { createBullMQQueue } from '../../../src/queues/bullmq/index.js';
import type { BullMQCallbackQueue } from '../../../src/queues/bullmq/index.js';
import type { CallbackJob } from '../../../src/webhooks/index.js';
import { deferredScenarios } from '../../helpers/deferred-scenarios.js';
import { startRedisServer } from '../../helpers/redis.js';
import type { RedisServer } from '../../helpers/redis.js';

// Deferred callbacks on payorch/bullmq with a real Redis (Debian's redis-server, started here on a
// free loopback port; npm test installs it) and the PostgreSQL inbox, so that once-only holds across
// the worker processes: the adapter's queues and workers, a worker process of the built adapter
// killed mid-handler, and BullMQ's stalled-job check with a short lock.
const QUEUE = 'payorch-callbacks';
const KILL_QUEUE = 'payorch-callbacks-kill';
const STALLED = { lockDurationMs: 1000, stalledIntervalMs: 500 };

let redis: RedisServer;
let callbacks: BullMQCallbackQueue;
let killCallbacks: BullMQCallbackQueue;

// Reconnects every 100 ms, so that the outage scenario is over quickly.
const connection = () => ({ ...redis.connection, retryStrategy: () => 100 });
const receiverOf = (apply: (job: CallbackJob) => Promise<unknown>) => ({ apply: async (job: CallbackJob) => { await apply(job); } });

deferredScenarios({
  name: 'BullMQ',
  prefix: 'bm',
  store: 'Redis',
  recovers: 'finds the job stalled',
  async start(apply, killCode) {
    redis = await startRedisServer();
    // Five attempts, none waiting: the retry scenario counts them.
    callbacks = createBullMQQueue({ connection: connection(), queue: QUEUE, retries: 4, retryDelaySeconds: 0, onError: () => undefined });
    killCallbacks = createBullMQQueue({ connection: connection(), queue: KILL_QUEUE, retries: 4, retryDelaySeconds: 0, onError: () => undefined });
    await Promise.all([callbacks.queue.waitUntilReady(), killCallbacks.queue.waitUntilReady()]);
    await callbacks.work(receiverOf(apply), STALLED).waitUntilReady();
    return async (job) => {
      await (job.payload['tracking_code'] === killCode ? killCallbacks : callbacks).enqueue(job);
    };
  },
  async stop() {
    await Promise.all([callbacks.close(), killCallbacks.close()]);
    await redis.close();
  },
  drained: async () => {
    const counts = await callbacks.queue.getJobCounts('wait', 'active', 'delayed');
    return counts['wait'] === 0 && counts['active'] === 0 && counts['delayed'] === 0;
  },
  down: () => redis.stop(),
  up: () => redis.start(),
  killWorker: () => ({ WORKER_ENGINE: 'bullmq', WORKER_QUEUE: KILL_QUEUE, WORKER_REDIS_URL: redis.url }),
  // It finds the killed worker's job stalled as quickly, but holds the job it takes under a longer
  // lock: on a busy machine a lock of 1 s lapses mid-job, and a second stall fails the job for good.
  workKillQueue: async (apply) => {
    await killCallbacks.work(receiverOf(apply), { ...STALLED, lockDurationMs: 10_000 }).waitUntilReady();
  },
});
