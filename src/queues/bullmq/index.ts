/**
 * payorch/bullmq: deferred callbacks on BullMQ 6 and Redis, through ioredis (both optional peers:
 * `npm install bullmq ioredis`). One factory, {@link createBullMQQueue}: give its `enqueue` to
 * `createCallbackReceiver`, start applying with `work(receiver)`, and list, replay or purge the
 * jobs whose retries ran out through `deadLetters`. Neither `payorch` nor `payorch/webhooks` loads
 * this entry, BullMQ or ioredis.
 *
 * **The Redis it needs.** BullMQ keeps every job, dead letters included, in Redis only. Run Redis
 * with `maxmemory-policy noeviction` (another policy may delete jobs under memory pressure) and with
 * an append-only file (`appendonly yes`): with `appendfsync everysec` a job acknowledged with 200
 * survives a Redis crash, with `appendfsync always` the machine's too. Without persistence a
 * restart loses every queued job and every dead letter, after the service was told 200. The
 * adapter reads `INFO` at start and says what is missing, on the console and to `onError`, unless
 * `acceptVolatileRedis` is true.
 *
 * @module payorch/bullmq
 */
export { createBullMQQueue } from './queue.js';
export type { BullMQCallbackQueue, BullMQQueueOptions, BullMQWorkOptions } from './queue.js';
export { BULLMQ_REPLAY_BATCH } from './dead-letters.js';
export type {
  CallbackQueue,
  DeadLetter,
  DeadLetterLife,
  DeadLetterPage,
  DeadLetters,
  ListDeadLettersOptions,
  PurgeDeadLettersOptions,
  ReplayDeadLettersOptions,
  ReplayedDeadLetters,
} from '../dead-letters.js';
