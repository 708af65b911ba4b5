// The queue-adapter contract (payorch/testing) on payorch/bullmq, against BullMQ 6 on a real
// redis-server: each case gets a queue of its own, three attempts without waiting, and BullMQ's
// failed set as its dead letters. BullMQ has no retention of its own over a failed job (every job
// is added with removeOnFail: false), so `expire` has nothing to run; the Redis restart that keeps
// them is test/bullmq/queue.test.ts's.
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createBullMQQueue } from '../../src/queues/bullmq/index.js';
import { queueContract } from '../../src/testing/index.js';
import { startRedisServer } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
}, 20_000);
afterAll(async () => {
  await redis.close();
});

describe('the queue-adapter contract, on BullMQ 6', () => {
  let made = 0;
  for (const contractCase of queueContract({
    async setup() {
      made += 1;
      const callbacks = createBullMQQueue({ connection: redis.connection, queue: `contract-${String(process.pid)}-${String(made)}`, retries: 2, retryDelaySeconds: 0, onError: () => undefined });
      await callbacks.queue.waitUntilReady();
      return {
        queue: callbacks,
        work: (receiver) => callbacks.work(receiver, { onDeadLetter: () => undefined }).waitUntilReady(),
        // As anyone with access to Redis could add one: BullMQ's own job defaults, not enqueue's.
        send: (job) => callbacks.queue.add('callback', job as never),
        expire: () => Promise.resolve(),
        close: () => callbacks.close(),
      };
    },
  })) {
    // Each case has an engine of its own: they run side by side.
    test.concurrent(contractCase.name, contractCase.run, 120_000);
  }
});
