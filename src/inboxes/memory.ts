import { CallbackRetentionError, InboxError, InboxFullError } from '../errors/error.js';
import { checkOptions, declareOptions, TEN_YEARS_SECONDS } from '../core/option-checks.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome, CallbackProgress } from './inbox.js';
import { keyRecordTime } from './record-time.js';

/** What the in-memory inbox gives the handlers: the key, and what was applied before; nothing to commit. */
export type MemoryInboxContext = CallbackInboxContext;

/** Settings of {@link createMemoryInbox}. */
export interface MemoryInboxOptions {
  /**
   * How old a callback's record (the Unix seconds its tracking code ends with) may get before the
   * inbox forgets its key, in seconds. A key is forgotten once its record and its application are
   * both older than this; from then on a callback whose record is not younger than the newest
   * record forgotten, and whose key is not held, is refused with a {@link CallbackRetentionError}
   * (the receiver answers 422): it may have been applied already, so it is reconciled by hand.
   * @default 2592000 (30 days)
   * @example 90 * 86_400
   */
  readonly retentionSeconds?: number | undefined;
  /**
   * How many keys it holds at most, applied, under way, and partly applied. When it is full of keys it
   * cannot forget yet (see `retentionSeconds`), a new callback is refused (the receiver answers 500 and the service
   * redelivers later) rather than forgetting a key early, which could apply a callback twice.
   * The receiver warns on the console once 80% are held, and again once full.
   * A key costs about 600 bytes of heap (measured: 100,000 keys hold about 57 MiB). The defaults
   * carry about `maxKeys` / 30 callbacks a day (3,300); past that, or with several instances, use a
   * durable inbox: `createPostgresInbox` (`payorch/postgres`), D1 or a Durable Object.
   * @default 100000
   * @example 1_000_000
   */
  readonly maxKeys?: number | undefined;
  /**
   * The clock, in milliseconds since the epoch, for tests.
   * @default Date.now
   */
  readonly now?: (() => number) | undefined;
}

/** How old a record may get before the in-memory inbox forgets its key, by default: 30 days. */
export const DEFAULT_MEMORY_INBOX_RETENTION_SECONDS = 30 * 86_400;

const DEFAULT_MAX_KEYS = 100_000;

/** The memory inbox's options. @internal */
export const MEMORY_INBOX_OPTIONS = declareOptions<MemoryInboxOptions>()([
  { name: 'retentionSeconds', rule: { type: 'number', min: 1, max: TEN_YEARS_SECONDS, integer: true }, default: DEFAULT_MEMORY_INBOX_RETENTION_SECONDS },
  { name: 'maxKeys', rule: { type: 'number', min: 1, max: 100_000_000, integer: true }, default: DEFAULT_MAX_KEYS },
  { name: 'now', rule: { type: 'function' } },
]);

/** How full a memory inbox is: what the receiver it is given to warns of, and meters. No entry exports it. */
export interface MemoryInboxFill {
  /** The keys held: applied, under way and partly applied. */
  keys(): number;
  readonly maxKeys: number;
  readonly retentionSeconds: number;
  /** When its oldest key can first be forgotten, in milliseconds since the epoch; undefined when it holds none. */
  firstExpiryMs(): number | undefined;
}

// Each memory inbox's fill, read by the receivers it is given to: nothing on the inbox's own surface.
const fills = /* @__PURE__ */ new WeakMap<object, MemoryInboxFill>();

/** How full `inbox` is, when it is a memory inbox. @internal */
export function memoryInboxFill(inbox: object): MemoryInboxFill | undefined {
  return fills.get(inbox);
}

/**
 * The default inbox: keys in memory, in one process. Use it for a single instance of the
 * receiver; keys do not survive a restart, so a redelivery after a restart is applied again.
 * Several instances, or once-only across restarts, need a shared, durable inbox: the PostgreSQL
 * one of `payorch/postgres`.
 *
 * The statuses of one tracking code are applied one at a time: a `failed` that arrives while its
 * `rejected` is being applied waits for it, and its handlers see `appliedStatuses: ['rejected']`.
 * Nothing here rolls back, so a handler that completed is not run again for its key, and its
 * status counts as applied for the statuses after it even when a later handler threw: a
 * `rejected` whose refund completed is in the `appliedStatuses` of the `failed` that follows.
 *
 * Memory is bounded: keys whose record and application are older than `retentionSeconds` are
 * forgotten (and callbacks of records that old refused, see {@link CallbackRetentionError}), and
 * at most `maxKeys` are held.
 *
 * @example
 * ```ts
 * import { createCallbackReceiver, createMemoryInbox } from 'payorch';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createMemoryInbox({ maxKeys: 1_000_000 }) });
 * ```
 */
export function createMemoryInbox(options: MemoryInboxOptions = {}): CallbackInbox {
  checkOptions('createMemoryInbox', options, MEMORY_INBOX_OPTIONS);
  const retentionMs = (options.retentionSeconds ?? DEFAULT_MEMORY_INBOX_RETENTION_SECONDS) * 1000;
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const now = options.now ?? Date.now;
  // Keys in the order they were applied, with when: a Map iterates in insertion order, so the
  // expired ones are always at the front.
  const applied = new Map<string, { readonly at: number; readonly record: number; readonly code: string; readonly status: string }>();
  // The newest record time forgotten, Unix seconds: an unknown key of a record not younger than it
  // may have been applied. Nothing forgotten yet, nothing refused: a fresh inbox knows no more
  // than one that forgot, and refusing would only send genuine callbacks to reconciliation.
  let horizon = -Infinity;
  const running = new Map<string, Promise<unknown>>();
  // Per merchant and tracking code: the statuses that took their place, in order (applied, or
  // partly applied: see `partial`), for `appliedStatuses`; and the first record time given for
  // it, which its keys are kept by. A record time is no part of a key's identity: a transfer's is
  // read from an unsigned field whose form may change between reads.
  const codes = new Map<string, { readonly record: number; statuses: string[] }>();
  // Handlers that completed in attempts that failed later: nothing here rolls back, so a
  // redelivery must not run them again. Such a status has taken its place among its tracking
  // code's statuses: every status applied after it sees it (a refund it made is not made again),
  // and its own redeliveries see only the statuses placed before it (`before`). Dropped once the
  // callback is applied, or with age.
  const partial = new Map<string, { readonly at: number; readonly record: number; readonly code: string; readonly status: string; readonly steps: Set<string>; readonly before: readonly string[] }>();

  function place(code: string, record: number, status: string): void {
    const held = codes.get(code);
    if (held === undefined) codes.set(code, { record, statuses: [status] });
    else held.statuses.push(status);
  }

  function unplace(code: string, status: string): void {
    const held = codes.get(code);
    if (held === undefined) return;
    held.statuses = held.statuses.filter((each) => each !== status);
    if (held.statuses.length === 0) codes.delete(code);
  }

  function forgetExpired(): void {
    const oldest = now() - retentionMs;
    // In the order applied, so the loop stops at the first key applied within the retention. A key
    // is forgotten by its record's age; one applied long ago whose record is still young (a clock
    // ahead of ours) waits for its record. Forgetting what a failed attempt completed could run a
    // crediting handler twice: the same horizon covers it.
    for (const keys of [applied, partial]) {
      for (const [id, entry] of keys) {
        if (entry.at > oldest) break;
        if (entry.record * 1000 > oldest) continue;
        keys.delete(id);
        horizon = Math.max(horizon, entry.record);
        unplace(entry.code, entry.status);
      }
    }
  }

  // The tail of each merchant + tracking code's queue: its statuses are applied one at a time,
  // so that `appliedStatuses` lists every status applied before. Settled, never rejected.
  const turns = new Map<string, Promise<void>>();
  function inTurn<T>(code: string, work: () => Promise<T>): Promise<T> {
    const before = turns.get(code);
    const mine = before === undefined ? work() : before.then(work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    turns.set(code, settled);
    void settled.then(() => {
      if (turns.get(code) === settled) turns.delete(code);
    });
    return mine;
  }

  // By the first key of each map, the oldest applied: one whose record is younger waits for it.
  function firstExpiryMs(): number | undefined {
    let first: number | undefined;
    for (const entries of [applied, partial]) {
      for (const entry of entries.values()) {
        const at = Math.max(entry.at, entry.record * 1000) + retentionMs;
        first = first === undefined ? at : Math.min(first, at);
        break;
      }
    }
    return first;
  }

  const inbox: CallbackInbox = {
    async process(key, apply) {
      // Each part behind its length: the parts stay apart whatever characters they hold.
      const code = `${key.merchantId.length}:${key.merchantId}${key.trackingCode.length}:${key.trackingCode}`;
      const id = code + key.status;
      const given = keyRecordTime(key);
      forgetExpired();
      // The key before the horizon: a callback still held is a duplicate, answered 200 as always.
      if (applied.has(id)) return 'duplicate';
      const current = running.get(id);
      if (current !== undefined) {
        try {
          await current;
        } catch (error) {
          throw new InboxError('a copy of this callback delivered at the same time failed; this one was not applied either', { cause: error });
        }
        return 'duplicate';
      }
      // Only a new key is refused for want of room: one partly applied is held already, and its
      // redelivery (a refund whose first handler completed) must run what is left of it.
      if (!partial.has(id) && applied.size + running.size + partial.size >= maxKeys) {
        throw new InboxFullError(`the in-memory inbox holds ${maxKeys} keys it cannot forget yet (records younger than ${retentionMs / 1000} s); raise maxKeys or use a database inbox`);
      }
      const work = inTurn(code, async (): Promise<CallbackInboxOutcome> => {
        // Read in its turn: a forget may have raised the horizon, and another status placed the
        // tracking code, while it waited. A tracking code held keeps the record time first given.
        const record = codes.get(code)?.record ?? given;
        const earlier = partial.get(id);
        // A key with progress kept is known not applied: it carries on.
        if (record <= horizon && earlier === undefined) throw new CallbackRetentionError(key, record, horizon);
        // Steps done in earlier attempts, and the ones this attempt completes: kept in `partial`
        // only if the attempt fails, since an applied callback forgets them.
        const steps = earlier?.steps ?? new Set<string>();
        const progress: CallbackProgress = { has: (step) => steps.has(step), add: (step) => void steps.add(step) };
        const before = earlier?.before ?? [...(codes.get(code)?.statuses ?? [])];
        try {
          await apply({ key, appliedStatuses: [...before] }, progress);
        } catch (error) {
          if (steps.size > 0 && earlier === undefined) {
            partial.set(id, { at: now(), record, code, status: key.status, steps, before });
            place(code, record, key.status);
          }
          throw error;
        }
        partial.delete(id);
        applied.set(id, { at: now(), record, code, status: key.status });
        if (earlier === undefined) place(code, record, key.status);
        return 'applied';
      });
      running.set(id, work);
      try {
        return await work;
      } finally {
        running.delete(id);
      }
    },
  };
  fills.set(inbox, { keys: () => applied.size + running.size + partial.size, maxKeys, retentionSeconds: retentionMs / 1000, firstExpiryMs });
  return inbox;
}
