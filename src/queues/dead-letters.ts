import { checkList, checkNames, checkOptions, checkValue, declareOptions } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import { CallbackJobError, CallbackRetentionError, RequestValidationError, isPayorchError } from '../errors/error.js';
import type { CallbackJob } from '../webhooks/job.js';
import { RESEAL_KEYS, resealCallbackJob } from '../webhooks/seal.js';
import type { ResealKeys } from '../webhooks/seal.js';

/*
 * What every queue adapter gives, under the same names and meanings on every engine: `enqueue`
 * for the receiver, and the dead letters a person lists, replays and purges. Each adapter adds its
 * own way to start applying jobs (the engine's worker, or a Worker's `queue` handler), since that
 * is the engine's.
 */

/**
 * A job whose retries ran out, as {@link DeadLetters.list} shows it: what a person needs to decide
 * whether to replay or purge it. It holds no key, no hash and no customer data beyond the job's
 * tracking code; {@link DeadLetters.get} gives the job itself.
 */
export interface DeadLetter {
  /** The engine's id of the dead letter: what `get`, `replay` and `purge` take. */
  readonly id: string;
  /** The callback's kind (`deposit`, `withdrawal`, `creditCard`, `dealerCreditCard`). */
  readonly kind: string;
  /** The tracking code, or the transfer id, the job is about. */
  readonly trackingCode: string;
  /** The status the job applies. */
  readonly status: string;
  /** The merchant the job is kept under: the receiver's `merchantId`, or a digest of its API key (never a key). */
  readonly merchantId: string;
  /** When the receiver first got the callback (the job's `receivedAt`). */
  readonly receivedAt: Date;
  /** How many times the engine ran the job before it gave up, in all its lives: those of `history` included. */
  readonly attempts: number;
  /** The last attempt's error, as `name: message` (a `CallbackJobError`'s reason is its name's field). */
  readonly lastError: string;
  /** When the job became a dead letter. */
  readonly deadAt: Date;
  /** Its earlier lives, oldest first: each time it was a dead letter before a replay. Empty for a job never replayed. */
  readonly history: readonly DeadLetterLife[];
}

/** One earlier life of a dead letter: it died, then was replayed. */
export interface DeadLetterLife {
  /** How many times the engine ran the job in that life. */
  readonly attempts: number;
  /** That life's last error, as `name: message`. */
  readonly lastError: string;
  /** When it became a dead letter then. */
  readonly deadAt: Date;
}

/** One page of {@link DeadLetters.list}. */
export interface DeadLetterPage {
  /** Oldest first. */
  readonly deadLetters: readonly DeadLetter[];
  /** Pass it as `cursor` to read the next page; absent on the last page. */
  readonly cursor?: string | undefined;
}

/** Settings of {@link DeadLetters.list}. */
export interface ListDeadLettersOptions {
  /**
   * How many dead letters a page holds at most.
   * @default 50
   */
  readonly limit?: number | undefined;
  /** The `cursor` of the page before; left out, the first page. */
  readonly cursor?: string | undefined;
}

/** How many dead letters a page holds when no `limit` is given, on every engine. No entry exports it. */
export const DEFAULT_DEAD_LETTER_PAGE = 50;

/**
 * `limit` of {@link ListDeadLettersOptions}, one range and default on every engine: the adapters
 * check it, and `payorch dead-letters list --limit` with it.
 * No entry exports it.
 */
export const DEAD_LETTER_PAGE_LIMIT: OptionDeclaration<'limit'> = { name: 'limit', rule: { type: 'number', min: 1, max: 1000, integer: true }, default: DEFAULT_DEAD_LETTER_PAGE };

/** Settings of {@link DeadLetters.replay}. */
export interface ReplayDeadLettersOptions {
  /** The dead letters to replay, by id; left out, the oldest, as many as one engine batch holds. */
  readonly ids?: readonly string[] | undefined;
  /**
   * Re-seals each job before it is sent again (`resealCallbackJob`): give the key that sealed jobs
   * before a rotation on purpose, after `until` (docs/rotating-keys.md).
   */
  readonly reseal?: ResealKeys | undefined;
}

/** What {@link DeadLetters.replay} did. */
export interface ReplayedDeadLetters {
  /** How many jobs were sent to the queue again, and deleted from the dead letters. */
  readonly replayed: number;
  /** How many of the dead letters it was asked for are left (of those `ids`, or of all): call `replay` again while it is above 0. */
  readonly remaining: number;
}

/** Which dead letters {@link DeadLetters.purge} deletes: some by id, or every one dead before a time. */
export type PurgeDeadLettersOptions = { readonly ids: readonly string[] } | { readonly before: Date };

/**
 * The dead letters of a queue: kept until a person replays or purges them, past every retention
 * of the engine's own.
 */
export interface DeadLetters {
  /** A page of dead letters, oldest first. */
  list(options?: ListDeadLettersOptions): Promise<DeadLetterPage>;
  /** One dead letter with its job, or `undefined` when there is none of that id. */
  get(id: string): Promise<(DeadLetter & { readonly job: CallbackJob }) | undefined>;
  /**
   * Sends dead letters to the queue again, within one batch of the engine's, each sent before it
   * is deleted; two replays at once send each at most once more, and the inbox applies it once.
   */
  replay(options?: ReplayDeadLettersOptions): Promise<ReplayedDeadLetters>;
  /** Deletes dead letters for good: those named, or every one dead before `before`; one a replay is sending at that moment is the replay's. */
  purge(options: PurgeDeadLettersOptions): Promise<{ readonly purged: number }>;
}

/**
 * What every queue adapter's factory returns, whatever the engine: give `enqueue` to
 * `createCallbackReceiver`, and let a person see and act on `deadLetters`.
 */
export interface CallbackQueue {
  /**
   * Puts a job on the queue; resolves once the engine holds it durably, so that the receiver may
   * answer 200. A plain function: pass it detached (`enqueue: queue.enqueue`).
   */
  readonly enqueue: (job: CallbackJob) => Promise<void>;
  readonly deadLetters: DeadLetters;
}

/** What a dead letter's engine record adds to its job: `attempts` of its current life, and its earlier lives as stored. No entry exports it. */
export interface DeadLetterRecord {
  readonly id: string;
  readonly attempts: number;
  readonly lastError: string;
  readonly deadAt: Date;
  /** The earlier lives as the engine keeps them ({@link storedLife}s: JSON), or as JSON text. */
  readonly history?: unknown;
}

/** An earlier life as an engine keeps it, in JSON beside the sealed job (never inside it). No entry exports it. */
export interface StoredLife {
  readonly attempts: number;
  readonly lastError: string;
  /** Milliseconds since 1970. */
  readonly deadAt: number;
}

/** A dead letter's life, as kept before its replay. No entry exports it. */
export const storedLife = (attempts: number, lastError: string, deadAt: number): StoredLife => ({ attempts, lastError, deadAt });

/**
 * The earlier lives an engine kept, read without trusting their shape (a record anyone with access
 * may have written): an entry that is not a life is left out.
 * No entry exports it.
 */
export function storedHistory(value: unknown): StoredLife[] {
  let list = value;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      return [];
    }
  }
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    const life = (typeof entry === 'object' && entry !== null ? entry : {}) as Partial<Record<keyof StoredLife, unknown>>;
    const { attempts, lastError, deadAt } = life;
    return typeof attempts === 'number' && Number.isSafeInteger(attempts) && attempts >= 0 && typeof lastError === 'string' && typeof deadAt === 'number' ? [storedLife(attempts, lastError, deadAt)] : [];
  });
}

/**
 * The dead letter of a job as every adapter shows it: the job's own fields read without trusting
 * its shape (a dead letter may be a job someone wrote into the queue), and the engine's record.
 * No entry exports it.
 */
export function deadLetterOf(job: unknown, record: DeadLetterRecord): DeadLetter {
  const fields = typeof job === 'object' && job !== null ? (job as Readonly<Record<string, unknown>>) : {};
  const payload = typeof fields['payload'] === 'object' && fields['payload'] !== null ? (fields['payload'] as Readonly<Record<string, unknown>>) : {};
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const receivedAt = typeof fields['receivedAt'] === 'number' ? fields['receivedAt'] : Number.NaN;
  const history = storedHistory(record.history).map((life) => ({ attempts: life.attempts, lastError: life.lastError, deadAt: new Date(life.deadAt) }));
  return {
    id: record.id,
    kind: text(fields['kind']),
    trackingCode: text(payload['tracking_code']) || text(payload['transfer_id']),
    status: text(payload['status']),
    merchantId: text(fields['merchantId']),
    receivedAt: new Date(receivedAt),
    attempts: history.reduce((sum, life) => sum + life.attempts, record.attempts),
    lastError: record.lastError,
    deadAt: record.deadAt,
    history,
  };
}

/**
 * The last error of a job as a dead letter keeps it: `name: message`, at most 1000 characters. The
 * receiver's errors name no key; a handler's own error is the merchant's.
 * No entry exports it.
 */
export function lastErrorOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}

/**
 * Whether a job's failure ends its retries at once, on every engine: a job that does not verify
 * (changed in the queue, another merchant's, sealed with a previous key past its `until`) or whose
 * record is past the inbox's retention fails the same way on every attempt. A refusal another
 * worker or a later attempt may pass (`CallbackJobError.retryable`: a seal of a key this worker does
 * not hold, a receipt time in its future) is retried like any passing failure.
 * No entry exports it.
 */
export function retryCannotHelp(error: unknown): boolean {
  return (isPayorchError(error, CallbackJobError) && !error.retryable) || isPayorchError(error, CallbackRetentionError);
}

/** The most ids `purge` takes, and a page of `list` holds. */
const MAX_IDS = 1000;
const ID = 'must be a dead letter\'s id, as list gives it';

/** Checks the id `get` is given. No entry exports it. */
export function checkDeadLetterId(where: string, id: unknown): string {
  checkValue(where, { name: 'id', rule: { type: 'text', maxLength: 200, allowed: 'a dead letter\'s id, as list gives it' }, required: true }, id);
  return id as string;
}

/** Checks a list of dead letters' ids: 1 to `max`, each an id given once. */
function checkIds(where: string, ids: unknown, max: number): readonly string[] {
  return checkList(where, 'ids', ids, {
    min: 1,
    max,
    items: "dead letters' ids",
    item: 'id',
    problem: (value) => (typeof value === 'string' && value !== '' && value.length <= 200 ? undefined : `${ID}; got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 64)) : typeof value}`),
  });
}

export const REPLAY_OPTIONS = declareOptions<ReplayDeadLettersOptions>()([{ name: 'reseal', rule: { type: 'object', methods: [], allowed: 'the keys { oldSecretKey, secretKey } (resealCallbackJob checks them)' } }], {
  ids: 'checked as a list of ids',
});

/**
 * Checks `replay`'s options: ids at most one engine batch (`batch`), and the keys to re-seal with.
 * No entry exports it.
 */
export function checkReplayOptions(options: ReplayDeadLettersOptions | undefined, batch: number): { readonly ids: readonly string[] | undefined; readonly reseal: ResealKeys | undefined } {
  checkOptions('deadLetters.replay', options, REPLAY_OPTIONS);
  // Before any dead letter is read: a misspelt key would otherwise be found only by one to re-seal.
  checkNames('deadLetters.replay reseal', options?.reseal, RESEAL_KEYS);
  return { ids: options?.ids === undefined ? undefined : checkIds('deadLetters.replay', options.ids, batch), reseal: options?.reseal };
}

/**
 * Checks `purge`'s options: `{ ids }` (1 to 1000) or `{ before }` (a Date, or milliseconds since 1970).
 * No entry exports it.
 */
export function checkPurgeOptions(options: unknown): { readonly ids: readonly string[] } | { readonly before: number } {
  const fields = typeof options === 'object' && options !== null ? (options as Readonly<Record<string, unknown>>) : {};
  if ('ids' in fields && !('before' in fields)) return { ids: checkIds('deadLetters.purge', fields['ids'], MAX_IDS) };
  if ('before' in fields && !('ids' in fields)) {
    const before = fields['before'];
    checkValue('deadLetters.purge', { name: 'before', rule: { type: 'time', min: 0, max: 8.64e15 }, required: true }, before);
    return { before: before instanceof Date ? before.getTime() : Number(before) };
  }
  throw new RequestValidationError('deadLetters.purge', [{ field: '(options)', rule: 'invalid_option', message: 'must be { ids } (the dead letters to delete) or { before } (a Date: every one dead before it)' }]);
}

/**
 * A dead letter's job re-sealed for a replay (`reseal`): a job the old key did not seal stops the
 * replay whole, naming the dead letter, before anything is sent.
 * No entry exports it.
 */
export function resealDeadLetter(id: string, job: unknown, keys: ResealKeys): CallbackJob {
  try {
    return resealCallbackJob(job as CallbackJob, keys);
  } catch (error) {
    if (!isPayorchError(error, CallbackJobError)) throw error;
    // Its own words, without the prefix the new error adds again.
    const why = error.message.replace(`Callback refused (${error.reason}): `, '').replace(/\.$/, '');
    throw new CallbackJobError(error.reason, error.field, `dead letter ${id}: ${why}. Nothing was replayed: purge it, or replay the others by id`, error.issues, error.retryable);
  }
}
