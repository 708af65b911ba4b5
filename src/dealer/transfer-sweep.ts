import { eachAtMost } from '../internal/each-at-most.js';
import { checkList, checkOptions, declareOptions } from '../core/option-checks.js';
import { APIError, ResponseValidationError } from '../errors/api-error.js';
import { CallbackRetentionError } from '../errors/error.js';
import type { CallbackInbox, CallbackInboxContext, CallbackKey } from '../inboxes/inbox.js';
import { isTransferEndStatus } from './transfer-status.js';
import type { TransferEndStatus } from './transfer-status.js';
import type { Transfer, TransferStatusParams, TransferStatusResult } from './transfers.js';

/*
 * Transfers have no callback (spec 6.1): their end is learnt by reading their status. A sweep that
 * runs on several instances must mark each end once, so it goes through the same inbox as
 * callbacks, under a key of its own: the merchant id, the transfer id and the status.
 */

/** A transfer that has ended, as `onStatus` gets it. */
export interface EndedTransfer extends Transfer {
  readonly status: TransferEndStatus;
}

/**
 * Settings of {@link applyTransferStatuses}.
 * @typeParam TContext what the inbox gives `onStatus` (with the PostgreSQL inbox, the open transaction)
 */
export interface ApplyTransferStatusesOptions<TContext extends CallbackInboxContext> {
  /** The dealer client that reads each status (`dealer.transfers.getStatus`), with its retry rules for reads. */
  readonly dealer: {
    readonly transfers: {
      /** Reads one transfer's status (spec 4.13); a `DealerClient`'s, with its retry rules for reads. */
      getStatus(params: TransferStatusParams): PromiseLike<TransferStatusResult>;
    };
  };
  /** The transfers to read: those your records still hold as pending. At most 1000 a call, each given once. */
  readonly transferIds: readonly string[];
  /**
   * Records which ends were applied, so that each is applied once, across instances and runs: a
   * shared, durable one (`createPostgresInbox`) when the sweep runs on more than one instance.
   * It may be the inbox of your callback receiver.
   */
  readonly inbox: CallbackInbox<TContext>;
  /**
   * The merchant the keys are kept under: the same on every instance, and never a key. Use the
   * receiver's `merchantId` when the inbox is shared with it.
   * @example 'dealer-main'
   */
  readonly merchantId: string;
  /**
   * Applies one end (`completed`, `failed` or `cancelled`): mark the payout paid, or return the
   * money to the customer's balance. It runs inside the inbox's `process`, so with the PostgreSQL
   * inbox its changes made through `context.client` commit with the key, or not at all. A throw
   * records nothing: the next sweep runs it again.
   */
  readonly onStatus: (transfer: EndedTransfer, context: TContext) => void | Promise<void>;
  /**
   * Told of an end that was applied before (by this sweep, another instance or an earlier run),
   * so that you can mark your row as ended: a row put back to pending (restored from a backup, a
   * failed update) would otherwise be read on every sweep. It runs outside the inbox, with no
   * transaction, and must move no money: `onStatus` did that once. A throw makes the outcome
   * `failed`; the next sweep tells it again.
   * @example (transfer) => db.query("update payouts set status = $1 where transfer_id = $2 and status = 'pending'", [transfer.status, transfer.transfer_id])
   */
  readonly onDuplicate?: ((transfer: EndedTransfer) => void | Promise<void>) | undefined;
  /**
   * How many statuses are read at once.
   * @default 4
   */
  readonly concurrency?: number | undefined;
}

/** What {@link applyTransferStatuses} did with one transfer. */
export interface TransferStatusOutcome {
  readonly transferId: string;
  /**
   * - `applied`: ended, and `onStatus` ran now.
   * - `duplicate`: ended, and applied before (by this sweep, another instance or an earlier run); `onDuplicate` was told.
   * - `pending`: not ended (or a status the SDK does not know, shown in `status`): left alone.
   * - `not_found`: the service answered 404: it holds no such transfer.
   * - `too_old`: ended, but its record is behind the inbox's retention horizon: it may have been applied; check by hand.
   * - `failed`: the read, the inbox or `onStatus` failed (`error`); nothing was recorded, the next sweep tries again.
   */
  readonly result: 'applied' | 'duplicate' | 'pending' | 'not_found' | 'too_old' | 'failed';
  /** The status read, when one was. */
  readonly status?: string | undefined;
  /** The transfer as read, when it was. */
  readonly transfer?: Transfer | undefined;
  /** Why it is `failed` or `too_old` (a `PayorchError` with its `outcome`, or what `onStatus` threw). */
  readonly error?: unknown;
}

const WHERE = 'applyTransferStatuses';
const MAX_IDS = 1000;

export const SWEEP_OPTIONS = declareOptions<ApplyTransferStatusesOptions<CallbackInboxContext>>()(
  [
  { name: 'dealer', rule: { type: 'object', methods: [], allowed: 'a DealerClient' }, required: true },
  { name: 'dealer.transfers', rule: { type: 'object', methods: ['getStatus'], allowed: 'a DealerClient (an object with transfers.getStatus)' }, required: true },
  { name: 'inbox', rule: { type: 'object', methods: ['process'], allowed: 'an object with a process(key, apply) method (CallbackInbox)' }, required: true },
  { name: 'merchantId', rule: { type: 'text', maxLength: 200 }, required: true },
  { name: 'onStatus', rule: { type: 'function' }, required: true },
  { name: 'onDuplicate', rule: { type: 'function' } },
  { name: 'concurrency', rule: { type: 'number', min: 1, max: 32, integer: true }, default: 4 },
  ],
  { transferIds: 'a list, checked id by id by checkList' },
);

// Spec 2.7: ISO 8601 without offset. Read as UTC, the one reading every instance shares
// (docs/spec-gaps.md); a zone, if the service sends one, is honoured.
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/** The transfer's record time in Unix seconds, from `created_at`: a TRF- id carries no time. */
function recordTimeOfTransfer(transfer: Transfer): number {
  const createdAt = transfer.created_at;
  const ms = createdAt === undefined ? Number.NaN : Date.parse(HAS_ZONE.test(createdAt) ? createdAt : `${createdAt}Z`);
  if (!Number.isFinite(ms) || ms < 0) {
    // The service's answer, read without fault by getStatus, lacks what the inbox key needs.
    throw new ResponseValidationError('dealer.transfers.getStatus', {
      status: 200,
      issues: [{ field: 'transfer.created_at', rule: 'invalid_format', message: `${JSON.stringify(createdAt ?? null)} is not a time, so the inbox key of ${transfer.transfer_id} has no record time; nothing was applied` }],
      body: { transfer },
      rawBody: JSON.stringify({ transfer }),
      resendable: true,
    });
  }
  return Math.floor(ms / 1000);
}

function checkIds(ids: unknown): readonly string[] {
  return checkList(WHERE, 'transferIds', ids, {
    min: 0,
    max: MAX_IDS,
    items: 'transfer ids (TRF-…)',
    item: 'transfer',
    problem: (id) => (typeof id === 'string' && id.trim() !== '' ? undefined : `must be a non-empty transfer id (TRF-…); got ${typeof id === 'string' ? '""' : typeof id}`),
  });
}

/**
 * Reads the status of each pending transfer and applies each end status once, through `inbox`,
 * under the key (merchant id, transfer id, status) with the transfer's `created_at` as its record
 * time. Transfers have no callback (spec 6.1), so run it on a schedule (every minute) over the
 * transfers your records hold as pending: on two instances at once, or again after a crash, each
 * end is applied once, since the inbox's `process` is the one place that decides.
 *
 * It resolves with one outcome per id, in the order given, and never rejects for one transfer's
 * failure: a 404 is `not_found`; a 401, 403, 5xx or timeout is `failed`, never `not_found`, so
 * that no paid transfer is taken for unknown.
 *
 * @throws {RequestValidationError} for a bad option, naming it, before any read
 * @example
 * ```ts
 * import { applyTransferStatuses } from 'payorch';
 * import type { CallbackInbox, DealerClient } from 'payorch';
 * import type { PostgresInboxContext } from 'payorch/postgres';
 * import type pg from 'pg';
 * declare const dealer: DealerClient;
 * declare const inbox: CallbackInbox<PostgresInboxContext<pg.PoolClient>>; // createPostgresInbox({ pool }), shared by every instance
 * declare const db: { pendingTransferIds(): Promise<string[]> };
 * const outcomes = await applyTransferStatuses({
 *   dealer,
 *   transferIds: await db.pendingTransferIds(),
 *   inbox,
 *   merchantId: 'dealer-main',
 *   onStatus: async (transfer, { client }) => {
 *     await client.query('update payouts set status = $1 where transfer_id = $2', [transfer.status, transfer.transfer_id]);
 *   },
 * });
 * for (const outcome of outcomes) if (outcome.result === 'failed') console.error(outcome.transferId, outcome.error);
 * ```
 */
export async function applyTransferStatuses<TContext extends CallbackInboxContext>(options: ApplyTransferStatusesOptions<TContext>): Promise<TransferStatusOutcome[]> {
  checkOptions(WHERE, options, SWEEP_OPTIONS);
  const ids = checkIds(options.transferIds);
  const { dealer, inbox, merchantId, onStatus, onDuplicate } = options;

  async function one(transferId: string): Promise<TransferStatusOutcome> {
    let transfer: Transfer;
    try {
      ({ transfer } = await dealer.transfers.getStatus({ transfer_id: transferId }));
    } catch (error) {
      // Only the service's own word that it holds no such transfer; anything else may hide one.
      if (error instanceof APIError && error.status === 404) return { transferId, result: 'not_found' };
      return { transferId, result: 'failed', error };
    }
    const { status } = transfer;
    if (!isTransferEndStatus(status)) return { transferId, result: 'pending', status, transfer };
    const ended = transfer as EndedTransfer;
    try {
      const key: CallbackKey = { merchantId, trackingCode: transferId, status, recordTime: recordTimeOfTransfer(transfer) };
      const result = await inbox.process(key, async (context) => {
        await onStatus(ended, context);
      });
      if (result === 'duplicate') await onDuplicate?.(ended);
      return { transferId, result, status, transfer };
    } catch (error) {
      return { transferId, result: error instanceof CallbackRetentionError ? 'too_old' : 'failed', status, transfer, error };
    }
  }

  return eachAtMost(ids, options.concurrency ?? 4, one);
}
