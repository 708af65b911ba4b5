import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * A callback's record is not younger than the inbox's horizon, and its key is not held: the inbox
 * may have forgotten that it applied it, so it does not apply it (again). Nothing was recorded.
 * The receiver answers 422 `record_too_old` and tells `onError` (phase `'retention'`) with the
 * callback: reconcile it by hand against your own record (docs/webhooks.md, "Retention").
 *
 * It carries the tracking code and status, not the key's account: that is the receiver's API key
 * when no `accountName` is given, and no error carries a key.
 *
 * @example
 * ```ts
 * onError: (error, { callback }) => {
 *   if (isPayorchError(error, CallbackRetentionError)) reconcileByHand(callback, error.recordTime);
 * }
 * ```
 */
export class CallbackRetentionError extends PayorchError {
  static {
    brand(this, 'CallbackRetentionError');
  }
  /** The callback's tracking code. */
  readonly trackingCode: string;
  /** The status it reports. */
  readonly status: string;
  /** The record's creation time, Unix seconds, read from the end of the tracking code. */
  readonly recordTime: number;
  /** The inbox's horizon, Unix seconds: records created at or before it are not applied unless their key is held. */
  readonly horizon: number;

  /** Made by the inboxes, from the callback's key (a `CallbackKey`; its account is not kept). */
  constructor(key: { readonly trackingCode: string; readonly status: string }, recordTime: number, horizon: number) {
    super(
      `${key.trackingCode} (${key.status}) was not applied: its record (${new Date(recordTime * 1000).toISOString()}) is not younger than the inbox's horizon ` +
        `(${new Date(horizon * 1000).toISOString()}), and a key that old may have been pruned; reconcile it by hand`,
    );
    this.trackingCode = key.trackingCode;
    this.status = key.status;
    this.recordTime = recordTime;
    this.horizon = horizon;
  }
}
