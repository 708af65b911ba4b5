/**
 * What makes a callback the same callback: the merchant it is kept under, its record and the
 * status it reports. The merchant id keeps receivers of several merchants that share an inbox
 * apart: whoever holds one merchant's keys cannot sign a callback that makes another merchant's
 * genuine one a duplicate.
 */
export interface CallbackKey {
  /** The receiver's `merchantId`, or a digest of its API key when none is given (never a key). */
  readonly merchantId: string;
  /** The tracking code, or the transfer id (`TRF-...`) of a transfer status. */
  readonly trackingCode: string;
  readonly status: string;
  /**
   * The record's creation time in Unix seconds, for a record whose id does not end with it (a
   * transfer: its `created_at`). Left out, it is the seconds the tracking code ends with. It is
   * kept for retention only, never part of the key: the same merchant, tracking code and status
   * given with another record time (a `created_at` written in another form) is the same key, and
   * an inbox keeps and forgets a tracking code by the first record time it was given.
   */
  readonly recordTime?: number | undefined;
}

/**
 * Which steps of a callback's work (the receiver's handlers) completed in an earlier attempt that
 * failed later. An inbox that cannot roll back what the handlers did (the in-memory one) keeps it,
 * so that a redelivery runs only the handlers that did not complete; a transactional inbox passes
 * none, because its rollback undid them all. A status one of whose steps completed is partly
 * applied: it takes its place among its tracking code's statuses at once (see
 * {@link CallbackInboxContext.appliedStatuses}).
 */
export interface CallbackProgress {
  /** Whether `step` completed in an earlier attempt. */
  has(step: string): boolean;
  /** Records that `step` completed. */
  add(step: string): void;
}

/**
 * What every inbox gives the handlers, whatever else it adds (a transaction, a database): the key,
 * and the statuses of the same merchant and tracking code applied before this one.
 */
export interface CallbackInboxContext {
  readonly key: CallbackKey;
  /**
   * The other statuses already applied for this merchant and tracking code, oldest first. Every
   * status of spec 6 ends its record, so a non-empty list means the service reported a second
   * end (a withdrawal `rejected`, then `failed`): refund once per tracking code, not per status.
   * The inbox applies the statuses of one tracking code one at a time, so this list is complete:
   * two statuses applied at the same time never both see it empty. An inbox that cannot roll back
   * (the in-memory one) also lists a status partly applied (an attempt that failed after some of
   * its handlers completed: a refund made stays made), and that status's own redeliveries see
   * only the statuses before it; a transactional inbox lists none, since its rollback undid the
   * attempt whole.
   */
  readonly appliedStatuses: readonly string[];
}

/** What {@link CallbackInbox.process} did: ran the work now, or found it done before. */
export type CallbackInboxOutcome = 'applied' | 'duplicate';

/**
 * Where a receiver records which callbacks it has applied, so that each is applied once.
 * Implement it over your own store when none of payorch's fits ({@link createMemoryInbox}, or the
 * entry of a database). `inboxContract` from `payorch/testing` checks your own against the
 * contract below.
 *
 * The contract, which the receiver relies on:
 * - `process` runs `apply` at most once per key that ends in success, and returns `'duplicate'`
 *   without running it when the key was applied before. A key is its merchant id, tracking code and
 *   status: the same key given with another `recordTime` is a duplicate.
 * - `process` resolves `'applied'` only once what `apply` changed in the store and the key are
 *   durable together: a commit that fails after `apply` resolved (PostgreSQL answering COMMIT
 *   with ROLLBACK because a handler caught a failed statement, a D1 batch that failed) rejects
 *   (payorch's with an `InboxCommitError`), records nothing, and a later call applies it. The
 *   receiver answers 500 to a rejection and tells `onError`: a 200 is a promise. An inbox that
 *   hands the handlers its transaction resolves `'applied'` only when that transaction, the one
 *   holding the key, is the one that commits: a handler that ended it itself gets a rejection.
 * - An inbox that forgets keys forgets them by the age of their record (the key's `recordTime`,
 *   else the Unix seconds its tracking code ends with), never by when they were applied, and keeps a horizon covering every
 *   record it forgot: a key it does not hold whose record is not younger than the horizon is
 *   refused with a {@link CallbackRetentionError}, `apply` not run, nothing recorded. The service
 *   may redeliver any callback re-signed at any time, so forgetting a key any other way would let
 *   it apply twice.
 * - When `apply` throws, nothing is recorded: `process` rejects, and a later call runs it again.
 * - A call made while another for the same key is under way waits for that one: it returns
 *   `'duplicate'` if that one succeeded, and rejects (or runs `apply` itself) if it failed.
 * - The statuses of one merchant and tracking code are applied one at a time, across every
 *   process and instance sharing the store: `apply` gets in `appliedStatuses` every status
 *   applied before it. A call may wait for another status's call, or (an inbox that holds no lock
 *   while `apply` runs) reject when another status was recorded meanwhile, recording nothing, so
 *   that the redelivery sees it. Calls for other tracking codes never wait for each other.
 * - `apply` gets the context the handlers get (for a database inbox, the open transaction), so
 *   that their changes and the key are committed together. An inbox that cannot roll back passes
 *   a {@link CallbackProgress} as well, kept from one failed attempt to the next, and lists a
 *   partly applied status in the `appliedStatuses` of every status after it: either way, a
 *   refund whose callback's second handler threw is made once, whichever end comes first.
 *
 * @typeParam TContext what the handlers are given besides the callback: the key, `appliedStatuses`, and the inbox's own
 */
export interface CallbackInbox<TContext extends CallbackInboxContext = CallbackInboxContext> {
  /**
   * Applies the callback named by `key` once.
   * @returns `'applied'` when `apply` ran and succeeded now, `'duplicate'` when it had before
   */
  process(key: CallbackKey, apply: (context: TContext, progress?: CallbackProgress) => Promise<void>): Promise<CallbackInboxOutcome>;
}
