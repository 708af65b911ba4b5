/**
 * payorch/cloudflare-queues: deferred callbacks on Cloudflare Queues, with dead letters kept in
 * D1. The Worker's `fetch` answers the service once a verified callback is on the queue
 * (`enqueue`); its `queue` handler (`work`) applies each message with `receiver.apply`, retries
 * what fails with a growing delay, and keeps what the dead-letter queue delivers in a D1 table,
 * where a person lists, replays and purges it (`deadLetters`). Runs without `nodejs_compat`, and
 * needs no `@cloudflare/workers-types`: the types below are the parts of Queues it uses.
 *
 * wrangler.toml:
 * ```toml
 * [[queues.producers]]
 * binding = "CALLBACKS"
 * queue = "payorch-callbacks"
 *
 * [[queues.consumers]]
 * queue = "payorch-callbacks"
 * max_retries = 10
 * dead_letter_queue = "payorch-callbacks-dead"
 *
 * [[queues.consumers]]
 * queue = "payorch-callbacks-dead"
 * max_retries = 100   # while D1 is down; a dead-letter queue has no dead letters of its own
 * ```
 *
 * @module payorch/cloudflare-queues
 */
import { checkOptions } from '../../core/option-checks.js';
import { QueueError, RequestValidationError } from '../../errors/error.js';
import { constantTimeEqual } from '../../internal/hash/constant-time.js';
import { sha256Hex } from '../../internal/hash/sha256.js';
import { lastErrorOf, retryCannotHelp } from '../dead-letters.js';
import type { DeadLetter } from '../dead-letters.js';
import type { CallbackJob } from '../../webhooks/job.js';
import type { CallbackApplyOptions } from '../../webhooks/receiver/receiver.js';
import { D1_DEAD_LETTERS_TABLE, deadLetterTable, deadLettersTableSql, jobText, quoteDeadLettersTable } from './dead-letters.js';
import { migrateD1Table } from '../../inboxes/sqlite-dialect/versions.js';
import type { TableMigration } from '../../core/table-migration.js';
import {
  CLOUDFLARE_QUEUE_OPTIONS,
  CLOUDFLARE_WORK_OPTIONS,
  D1_DEAD_LETTERS_TABLE_OPTIONS,
  DEFAULT_DEAD_LETTER_QUEUE_NAME,
  DEFAULT_MAX_RETRY_DELAY_SECONDS,
  DEFAULT_QUEUE_NAME,
  DEFAULT_RETRY_DELAY_SECONDS,
  REPLAY_ROUTE_OPTIONS,
} from './options.js';
import type { CloudflareQueue, CloudflareQueueOptions, D1DeadLettersTableOptions, JobApplier, QueueBatchLike } from './options.js';
import { callListener } from '../../core/listener.js';

/**
 * The SQL that creates the dead letters' D1 table: a row per job that failed an attempt (its
 * attempts and last error), which becomes a dead letter (`dead_at`) when the dead-letter queue
 * delivers it, with its lives before a replay (`history`, JSON). Run it in a migration (`wrangler d1 migrations`), or call
 * {@link createD1DeadLettersTable}.
 *
 * @example
 * ```ts
 * import { d1DeadLettersTableSql } from 'payorch/cloudflare-queues';
 * console.log(d1DeadLettersTableSql());
 * // CREATE TABLE IF NOT EXISTS "payorch_dead_letters" (
 * //   id TEXT PRIMARY KEY,
 * //   job TEXT NOT NULL,
 * //   attempts INTEGER NOT NULL,
 * //   last_error TEXT NOT NULL,
 * //   failed_at INTEGER NOT NULL,
 * //   dead_at INTEGER,
 * //   replay_claim TEXT,
 * //   replay_claimed_at INTEGER,
 * //   history TEXT
 * // )
 * ```
 */
export function d1DeadLettersTableSql(table?: string): string {
  return deadLettersTableSql(quoteDeadLettersTable('d1DeadLettersTableSql', table));
}

/**
 * Brings the dead letters' table to the version this payorch uses, keeping every row: creates it
 * when it does not exist ({@link d1DeadLettersTableSql}), migrates a table of an earlier version in
 * place, and records the version in `payorch_schema`, in one batch. A table of a later version, or
 * with columns of no version, is refused with a `QueueError`. To migrate with wrangler instead,
 * apply the SQL `payorch migrate d1-dead-letters --from <version>` prints.
 *
 * @returns the version the table was at (`from`, undefined when created) and is at (`to`)
 * @throws {QueueError} for a table of a later version or of no version's columns, naming the versions
 * @example
 * ```ts
 * import { createD1DeadLettersTable } from 'payorch/cloudflare-queues';
 * import type { D1DatabaseLike } from 'payorch/d1';
 * declare const env: { readonly DB: D1DatabaseLike };
 * await createD1DeadLettersTable({ db: env.DB });
 * ```
 */
export async function createD1DeadLettersTable(options: D1DeadLettersTableOptions): Promise<TableMigration> {
  checkOptions('createD1DeadLettersTable', options, D1_DEAD_LETTERS_TABLE_OPTIONS);
  return migrateD1Table(options.db, D1_DEAD_LETTERS_TABLE, quoteDeadLettersTable('createD1DeadLettersTable', options.table).slice(1, -1));
}

/**
 * Deferred callbacks on a Cloudflare Queue, with the dead letters in D1. Give `enqueue` to
 * `createCallbackReceiver`, export `work(receiver)` as the Worker's `queue` handler (it consumes
 * the callbacks' queue and its dead-letter queue), and let a person act on `deadLetters`:
 * `list`, `get`, `replay` (the oldest, or those named, as many as one `sendBatch` takes: 100
 * messages and 256 KB; each sent before it leaves the dead letters; two replays at once take none of the same)
 * and `purge`. A dead letter is kept until it is replayed or purged.
 *
 * What the queue makes once, and what it does not: a message is delivered at least once, and
 * copies of one callback may be applied side by side; the inbox applies each once. A job changed
 * in the queue is refused by `apply` (its seal) and is a dead letter at once, with that error: look
 * at who wrote it before you replay it. The replay route is `replayRoute`; tell a person of each
 * new dead letter with `work`'s `onDeadLetter`.
 *
 * @throws {RequestValidationError} at once for a missing binding or an impossible setting, naming it
 * @example
 * ```ts
 * import { createCallbackReceiver } from 'payorch';
 * import { createD1Inbox } from 'payorch/d1';
 * import type { D1DatabaseLike } from 'payorch/d1';
 * import { createCloudflareQueue } from 'payorch/cloudflare-queues';
 * import type { QueueBatchLike, QueueProducerLike } from 'payorch/cloudflare-queues';
 *
 * interface Env {
 *   readonly CALLBACKS: QueueProducerLike;
 *   readonly DB: D1DatabaseLike;
 *   readonly API_KEY: string;
 *   readonly SECRET_KEY: string;
 * }
 *
 * function setup(env: Env) {
 *   const queue = createCloudflareQueue({ queue: env.CALLBACKS, db: env.DB });
 *   const receiver = createCallbackReceiver({ apiKey: env.API_KEY, secretKey: env.SECRET_KEY, inbox: createD1Inbox({ db: env.DB }), enqueue: queue.enqueue });
 *   return { queue, receiver };
 * }
 * export default {
 *   fetch: (request: Request, env: Env) => setup(env).receiver.handle(request),
 *   queue: (batch: QueueBatchLike, env: Env) => { const { queue, receiver } = setup(env); return queue.work(receiver)(batch); },
 * };
 * ```
 */
export function createCloudflareQueue(options: CloudflareQueueOptions): CloudflareQueue {
  const where = 'createCloudflareQueue';
  checkOptions(where, options, CLOUDFLARE_QUEUE_OPTIONS);
  const name = options.queueName ?? DEFAULT_QUEUE_NAME;
  const deadName = options.deadLetterQueueName ?? DEFAULT_DEAD_LETTER_QUEUE_NAME;
  const firstDelay = options.retryDelaySeconds ?? DEFAULT_RETRY_DELAY_SECONDS;
  const longestDelay = options.maxRetryDelaySeconds ?? DEFAULT_MAX_RETRY_DELAY_SECONDS;
  if (name === deadName) {
    throw new RequestValidationError(where, [{ field: 'deadLetterQueueName', rule: 'invalid_option', message: `must differ from queueName ("${name}"): a dead letter would be applied again, and lost after its retries` }]);
  }
  if (longestDelay < firstDelay) {
    throw new RequestValidationError(where, [{ field: 'maxRetryDelaySeconds', rule: 'invalid_option', message: `must be at least retryDelaySeconds (${firstDelay}); got ${longestDelay}` }]);
  }
  const { queue, db } = options;
  const table = deadLetterTable(db, quoteDeadLettersTable(where, options.table), queue);
  const delayOf = (attempts: number): number => Math.min(longestDelay, firstDelay * 2 ** Math.min(Math.max(attempts - 1, 0), 16));

  async function applyEach(batch: QueueBatchLike, receiver: JobApplier, applyOptions: CallbackApplyOptions, tell: (deadLetters: readonly DeadLetter[]) => void): Promise<void> {
    await Promise.all(
      batch.messages.map(async (message) => {
        const text = jobText(message.body);
        try {
          await receiver.apply(message.body as CallbackJob, applyOptions);
        } catch (error) {
          const lastError = lastErrorOf(error);
          // Retrying cannot make it apply (changed in the queue, sealed with a key past its
          // window, older than the inbox's retention): a dead letter at once.
          if (retryCannotHelp(error)) {
            const kept = await table.deadNow(text, message.attempts, lastError).catch(() => undefined);
            if (kept !== undefined) {
              message.ack();
              tell(kept);
              return;
            }
          }
          const delaySeconds = delayOf(message.attempts);
          console.error(`payorch/cloudflare-queues: job ${message.id} (attempt ${message.attempts}) not applied: ${lastError}; retried in ${delaySeconds} s, or a dead letter past max_retries`);
          await table.failed(text, message.attempts, lastError).catch((recordError: unknown) => {
            console.error(`payorch/cloudflare-queues: the failure of job ${message.id} was not recorded in D1, so its dead letter will not show it: ${lastErrorOf(recordError)}`);
          });
          message.retry({ delaySeconds });
          return;
        }
        // Its failed attempts are kept no longer; a first attempt has none to forget.
        if (message.attempts > 1) await table.applied(text).catch(() => undefined);
        message.ack();
      }),
    );
  }

  async function keepDead(batch: QueueBatchLike, tell: (deadLetters: readonly DeadLetter[]) => void): Promise<void> {
    let kept: readonly DeadLetter[];
    try {
      kept = await table.dead(batch.messages.map((message) => jobText(message.body)));
    } catch (error) {
      for (const message of batch.messages) message.retry({ delaySeconds: delayOf(message.attempts) });
      console.error(`payorch/cloudflare-queues: ${batch.messages.length} dead letters not kept in D1, retried: ${lastErrorOf(error)}`);
      return;
    }
    for (const message of batch.messages) message.ack();
    tell(kept);
  }

  return {
    // JSON: a job is plain JSON, and Queues then counts its size as a replay does.
    enqueue: async (job) => {
      await queue.send(job, { contentType: 'json' });
    },
    deadLetters: table.deadLetters,
    work(receiver, workOptions = {}) {
      if (typeof (receiver as Partial<JobApplier> | undefined)?.apply !== 'function') {
        throw new RequestValidationError('work', [{ field: 'receiver', rule: 'invalid_option', message: 'must be a callback receiver (an object with apply()), for example createCallbackReceiver(…)' }]);
      }
      checkOptions('work', workOptions, CLOUDFLARE_WORK_OPTIONS);
      const applyOptions: CallbackApplyOptions = workOptions.provider === undefined ? {} : { provider: workOptions.provider };
      const onDeadLetter =
        workOptions.onDeadLetter ??
        ((deadLetter: DeadLetter) => {
          console.error(`payorch/cloudflare-queues: the job ${deadLetter.id} (${deadLetter.kind} ${deadLetter.trackingCode} ${deadLetter.status}) is a dead letter after ${deadLetter.attempts} attempt(s): ${deadLetter.lastError}. Kept in D1 until replayed or purged (deadLetters)`);
        });
      const tell = (deadLetters: readonly DeadLetter[]): void => {
        for (const deadLetter of deadLetters) {
          // Kept already: a throwing listener must not have the message retried.
          callListener(onDeadLetter, [deadLetter], (error) => {
            console.error('payorch/cloudflare-queues: onDeadLetter threw', error);
          });
        }
      };
      return async (batch) => {
        if (batch.queue === name) return applyEach(batch, receiver, applyOptions, tell);
        if (batch.queue === deadName) return keepDead(batch, tell);
        // Thrown: the runtime retries the batch, and it is heard, rather than applied or kept by mistake.
        throw new QueueError(`payorch/cloudflare-queues: a batch of queue "${batch.queue}" reached work(), which consumes "${name}" (queueName) and "${deadName}" (deadLetterQueueName): route other queues yourself, or give the names wrangler.toml uses`);
      };
    },
    replayRoute(routeOptions) {
      checkOptions('replayRoute', routeOptions, REPLAY_ROUTE_OPTIONS);
      const { token } = routeOptions;
      const expected = token === undefined ? undefined : sha256Hex(`Bearer ${token}`);
      return async (request) => {
        const authorization = request.headers.get('authorization');
        // Digests of equal length, compared in time that does not depend on where they differ.
        if (expected === undefined || request.method !== 'POST' || authorization === null || !constantTimeEqual(sha256Hex(authorization), expected)) {
          return new Response(null, { status: 404 });
        }
        try {
          return Response.json(await table.deadLetters.replay());
        } catch (error) {
          console.error(`payorch/cloudflare-queues: replay failed: ${lastErrorOf(error)}`);
          return Response.json({ error: 'not_replayed', message: lastErrorOf(error) }, { status: 500 });
        }
      };
    },
  };
}

export type { QueueProducerLike } from './dead-letters.js';
export type { TableMigration } from '../../core/table-migration.js';
export type { CloudflareQueue, CloudflareQueueOptions, CloudflareWorkOptions, D1DeadLettersTableOptions, JobApplier, QueueBatchLike, QueueMessageLike, ReplayRouteOptions } from './options.js';
export type { CallbackQueue, DeadLetter, DeadLetterLife, DeadLetterPage, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions, ReplayDeadLettersOptions, ReplayedDeadLetters } from '../dead-letters.js';
export type { D1DatabaseLike } from '../../inboxes/d1/index.js';
