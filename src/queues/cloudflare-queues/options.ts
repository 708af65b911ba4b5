// payorch/cloudflare-queues' bindings as it reads them (the parts of Queues and D1 it uses, which
// Cloudflare's own types fit), its settings with their declared ranges and defaults, and what its
// factory returns.
import { declareOptions } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import type { D1DatabaseLike } from '../../inboxes/d1/index.js';
import type { CallbackQueue, DeadLetter } from '../dead-letters.js';
import type { CallbackJob } from '../../webhooks/job.js';
import type { CallbackApplyOptions } from '../../webhooks/receiver/receiver.js';
import { DEAD_LETTERS_TABLE_OPTION } from './dead-letters.js';
import type { QueueProducerLike } from './dead-letters.js';

/** A message of a batch, as the `queue` handler gets it; Cloudflare's `Message` fits. */
export interface QueueMessageLike {
  /** The queue's id of the message. */
  readonly id: string;
  /** What the producer sent: a job, for the callbacks' queues. */
  readonly body: unknown;
  /** How many times it was delivered, this time included: 1 the first time. */
  readonly attempts: number;
  /** Marks it done: the queue deletes it once the handler returns. */
  ack(): void;
  /** Marks it for another delivery after `delaySeconds`; past `max_retries`, the dead-letter queue. */
  retry(options?: { readonly delaySeconds?: number }): void;
}

/** A batch of messages, as the `queue` handler gets it; Cloudflare's `MessageBatch` fits. */
export interface QueueBatchLike {
  /** The name of the queue it came from, as wrangler.toml names it. */
  readonly queue: string;
  readonly messages: readonly QueueMessageLike[];
}

/** Settings of {@link createCloudflareQueue}. */
export interface CloudflareQueueOptions {
  /**
   * The producer binding of the callbacks' queue.
   * @example env.CALLBACKS
   */
  readonly queue: QueueProducerLike;
  /**
   * The D1 binding that keeps the dead letters (it may be the D1 inbox's database).
   * @example env.DB
   */
  readonly db: D1DatabaseLike;
  /**
   * The callbacks' queue as wrangler.toml names it: `work` applies the batches of this queue.
   * @default 'payorch-callbacks'
   * @example 'billing-callbacks'
   */
  readonly queueName?: string | undefined;
  /**
   * The consumer's `dead_letter_queue` in wrangler.toml: `work` keeps the batches of this queue
   * in D1. A batch of any other queue is refused (thrown, so the runtime retries it), never
   * applied or kept by mistake.
   * @default 'payorch-callbacks-dead'
   * @example 'billing-callbacks-dead'
   */
  readonly deadLetterQueueName?: string | undefined;
  /**
   * The D1 table of the dead letters ({@link d1DeadLettersTableSql}). Letters, digits and `_` only.
   * @default 'payorch_dead_letters'
   * @example 'billing_dead_letters'
   */
  readonly table?: string | undefined;
  /**
   * The delay before the first retry of a job that failed, in seconds; each retry waits twice as
   * long as the one before, up to `maxRetryDelaySeconds`. It replaces the consumer's
   * `retry_delay`; the consumer's `max_retries` still says how many retries there are.
   * @default 5
   * @example 30
   */
  readonly retryDelaySeconds?: number | undefined;
  /**
   * The longest delay between two attempts, in seconds (Queues takes at most 43200, 12 hours).
   * With the defaults and `max_retries = 10`, a job is retried for about 85 minutes before it
   * becomes a dead letter.
   * @default 3600
   * @example 600
   */
  readonly maxRetryDelaySeconds?: number | undefined;
}

export const DEFAULT_QUEUE_NAME = 'payorch-callbacks';
export const DEFAULT_DEAD_LETTER_QUEUE_NAME = 'payorch-callbacks-dead';
export const DEFAULT_RETRY_DELAY_SECONDS = 5;
export const DEFAULT_MAX_RETRY_DELAY_SECONDS = 3600;
/** Queues' longest delay (`retry({ delaySeconds })`). */
const MAX_DELAY_SECONDS = 43_200;

const queueName = (name: 'queueName' | 'deadLetterQueueName', value: string): OptionDeclaration<typeof name> => ({
  name,
  rule: { type: 'text', maxLength: 63, pattern: /^[A-Za-z0-9_-]+$/, allowed: 'a queue name as wrangler.toml gives it (letters, digits, - and _, up to 63)' },
  default: value,
});
const delay = (name: 'retryDelaySeconds' | 'maxRetryDelaySeconds', value: number): OptionDeclaration<typeof name> => ({
  name,
  rule: { type: 'number', min: 0, max: MAX_DELAY_SECONDS, integer: true, unit: 's' },
  default: value,
  note: 'Queues delays a retry by at most 12 hours',
});

const DB_OPTION: OptionDeclaration<'db'> = {
  name: 'db',
  rule: { type: 'object', methods: ['prepare', 'batch'], allowed: 'a D1 binding (an object with prepare() and batch()), for example env.DB' },
  required: true,
};

export const CLOUDFLARE_QUEUE_OPTIONS = declareOptions<CloudflareQueueOptions>()([
  { name: 'queue', rule: { type: 'object', methods: ['send', 'sendBatch'], allowed: 'a Queues producer binding (an object with send() and sendBatch()), for example env.CALLBACKS' }, required: true },
  DB_OPTION,
  queueName('queueName', DEFAULT_QUEUE_NAME),
  queueName('deadLetterQueueName', DEFAULT_DEAD_LETTER_QUEUE_NAME),
  DEAD_LETTERS_TABLE_OPTION,
  delay('retryDelaySeconds', DEFAULT_RETRY_DELAY_SECONDS),
  delay('maxRetryDelaySeconds', DEFAULT_MAX_RETRY_DELAY_SECONDS),
]);

/** What `work` needs of a receiver: its `apply`. */
export interface JobApplier {
  /** `receiver.apply`: resolves once the job is applied (now or before), rejects to have it retried. */
  readonly apply: (job: CallbackJob, options?: CallbackApplyOptions) => Promise<void>;
}

/** Settings of {@link CloudflareQueue.work}. */
export interface CloudflareWorkOptions {
  /**
   * The provider client that reads again the status of a job made by `receiver.reconcile`
   * (`receiver.apply(job, { provider })`); needed only when the receiver reconciles.
   * @example new ProviderClient({ baseUrl, apiKey, secretKey, credentialKey })
   */
  readonly provider?: CallbackApplyOptions['provider'];
  /**
   * Told of each job as it becomes a dead letter, once it is kept in D1: alert on it.
   * @default a console.error line with its id, kind, tracking code, attempts and last error
   * @example (deadLetter) => console.error(JSON.stringify({ deadLetter }))
   */
  readonly onDeadLetter?: ((deadLetter: DeadLetter) => void) | undefined;
}

export const CLOUDFLARE_WORK_OPTIONS = declareOptions<CloudflareWorkOptions>()([
  { name: 'provider', rule: { type: 'object', methods: [], allowed: 'a ProviderClient' } },
  { name: 'onDeadLetter', rule: { type: 'function' } },
]);

/** Settings of {@link CloudflareQueue.replayRoute}. */
export interface ReplayRouteOptions {
  /**
   * The bearer token the route asks for: a random secret of at least 32 characters
   * (`wrangler secret put REPLAY_TOKEN`). Left out, the route answers 404 to every request.
   * @example env.REPLAY_TOKEN
   */
  readonly token: string | undefined;
}

export const REPLAY_ROUTE_OPTIONS = declareOptions<ReplayRouteOptions>()([
  { name: 'token', rule: { type: 'text', maxLength: 1000, pattern: /^\S{32,}$/, allowed: 'a random string of at least 32 characters without spaces (openssl rand -hex 32)' } },
]);

/** What {@link createCloudflareQueue} returns. */
export interface CloudflareQueue extends CallbackQueue {
  /**
   * The Worker's `queue` handler. For a batch of `queueName`, it applies each message with
   * `receiver.apply`, side by side: acknowledged once applied (or applied before); retried when
   * `apply` rejects, after `retryDelaySeconds` doubled at each attempt (at most
   * `maxRetryDelaySeconds`), with the attempt and its error kept in D1 for the dead letter it may
   * become past the consumer's `max_retries`. A job that can never apply (a `CallbackJobError`:
   * changed in the queue, sealed with the previous key past its `until`; a `CallbackRetentionError`) is a dead
   * letter at once. For a batch of `deadLetterQueueName`, it keeps each message in D1 on its first
   * delivery and acknowledges it once written (a dead-letter queue forgets a message after its
   * retention, 14 days at most); while D1 fails, the batch is retried. Each new dead letter is told
   * to `onDeadLetter`.
   *
   * @throws {RequestValidationError} at once for a receiver without `apply`, or an impossible option
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver, ProviderClient } from 'payorch';
   * import type { CloudflareQueue, QueueBatchLike } from 'payorch/cloudflare-queues';
   * interface Env { readonly DB: unknown }
   * declare const provider: ProviderClient;
   * declare function setup(env: Env): { queue: CloudflareQueue; receiver: CallbackReceiver<CallbackInboxContext> };
   * export default {
   *   queue(batch: QueueBatchLike, env: Env) {
   *     const { queue, receiver } = setup(env);
   *     return queue.work(receiver, { provider })(batch);
   *   },
   * };
   * ```
   */
  work(receiver: JobApplier, options?: CloudflareWorkOptions): (batch: QueueBatchLike) => Promise<void>;
  /**
   * A Fetch API handler for the Worker to mount (`POST /dead-letters/replay`): with
   * `Authorization: Bearer <token>`, it replays the oldest dead letters, as many as one
   * `sendBatch` takes, and answers `{ replayed, remaining }` (call it again while `remaining` is
   * above 0); anything else, a wrong token and every method but POST, is answered 404. The token is
   * compared in constant time.
   *
   * @throws {RequestValidationError} at once for a token shorter than 32 characters
   * @example
   * ```ts
   * import type { CloudflareQueue } from 'payorch/cloudflare-queues';
   * declare const queue: CloudflareQueue;
   * export function fetch(request: Request, env: { readonly REPLAY_TOKEN?: string }): Promise<Response> | Response {
   *   const { pathname } = new URL(request.url);
   *   if (pathname === '/dead-letters/replay') return queue.replayRoute({ token: env.REPLAY_TOKEN })(request);
   *   return new Response(null, { status: 404 });
   * }
   * ```
   */
  replayRoute(options: ReplayRouteOptions): (request: Request) => Promise<Response>;
}

/** Settings of {@link createD1DeadLettersTable}. */
export interface D1DeadLettersTableOptions {
  /**
   * The D1 binding.
   * @example env.DB
   */
  readonly db: D1DatabaseLike;
  /**
   * The dead letters' table. Letters, digits and `_` only.
   * @default 'payorch_dead_letters'
   * @example 'billing_dead_letters'
   */
  readonly table?: string | undefined;
}

export const D1_DEAD_LETTERS_TABLE_OPTIONS = declareOptions<D1DeadLettersTableOptions>()([DB_OPTION, DEAD_LETTERS_TABLE_OPTION]);

