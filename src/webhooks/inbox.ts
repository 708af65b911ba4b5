/**
 * What makes a callback the same callback: the account it is for, its record and the status it
 * reports. The account keeps receivers of several accounts that share an inbox apart: whoever
 * holds one account's keys cannot sign a callback that makes another account's genuine one a
 * duplicate.
 */
export interface CallbackKey {
  /** The receiver's `accountName`, or its API key when none is given. */
  readonly account: string;
  readonly trackingCode: string;
  readonly status: string;
}

/**
 * Which steps of a callback's work (the receiver's handlers) completed in an earlier attempt that
 * failed later. An inbox that cannot roll back what the handlers did (the in-memory one) keeps it,
 * so that a redelivery runs only the handlers that did not complete; a transactional inbox passes
 * none, because its rollback undid them all.
 */
export interface CallbackProgress {
  /** Whether `step` completed in an earlier attempt. */
  has(step: string): boolean;
  /** Records that `step` completed. */
  add(step: string): void;
}

/** What {@link CallbackInbox.process} did: ran the work now, or found it done before. */
export type CallbackInboxOutcome = 'applied' | 'duplicate';

/**
 * Where a receiver records which callbacks it has applied, so that each is applied once.
 * Implement it over your own store when neither shipped inbox fits: payorch ships the in-memory
 * one ({@link createMemoryInbox}) and a PostgreSQL one (`createPostgresInbox` from
 * `payorch/postgres`).
 *
 * The contract, which the receiver relies on:
 * - `process` runs `apply` at most once per key that ends in success, and returns `'duplicate'`
 *   without running it when the key was applied before.
 * - An inbox that forgets keys forgets them by the age of their record (the Unix seconds a
 *   tracking code ends with), never by when they were applied, and keeps a horizon covering every
 *   record it forgot: a key it does not hold whose record is not younger than the horizon is
 *   refused with a {@link CallbackRetentionError}, `apply` not run, nothing recorded. The service
 *   may redeliver any callback re-signed at any time, so forgetting a key any other way would let
 *   it apply twice.
 * - When `apply` throws, nothing is recorded: `process` rejects, and a later call runs it again.
 * - A call made while another for the same key is under way waits for that one: it returns
 *   `'duplicate'` if that one succeeded, and rejects (or runs `apply` itself) if it failed.
 * - **One tracking code at a time.** Calls for the same account and tracking code wait for each
 *   other, whatever their statuses, across every process or Worker that shares the store; a
 *   context's `appliedStatuses` lists every status applied before this one. So two end statuses
 *   arriving together (`rejected` and `failed`) never both see an empty list, and a handler that
 *   refunds once per tracking code refunds once. Calls for other tracking codes never wait. An
 *   inbox may bound the wait, and then rejects, nothing recorded, so that the callback comes back.
 * - `apply` gets the context the handlers get (for a database inbox, the open transaction), so
 *   that their changes and the key are committed together. An inbox that cannot roll back passes
 *   a {@link CallbackProgress} as well, kept from one failed attempt to the next.
 *
 * @typeParam TContext what the handlers are given besides the callback
 */
export interface CallbackInbox<TContext> {
  /**
   * Applies the callback named by `key` once.
   * @returns `'applied'` when `apply` ran and succeeded now, `'duplicate'` when it had before
   */
  process(key: CallbackKey, apply: (context: TContext, progress?: CallbackProgress) => Promise<void>): Promise<CallbackInboxOutcome>;
}
