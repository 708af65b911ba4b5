import { PayorchError } from './payorch-error.js';
import { brand } from './brand.js';

/**
 * A verified callback was not applied because its record is too old for the inbox: the record
 * time (the Unix seconds that end its tracking code) is at or before the inbox's horizon, the
 * record time up to which keys were pruned, and its key was not among those kept. Applying it
 * could apply it a second time, so nothing was recorded and the receiver did not answer 200:
 * reconcile the record by hand (read its status from the service, then record it yourself).
 *
 * It carries the tracking code and status, not the whole key: the key's account is the
 * receiver's API key when no `accountName` is given, and no error carries a key.
 */
export class CallbackRetentionError extends PayorchError {
  static {
    brand(this, 'CallbackRetentionError');
  }
  /** The callback's tracking code. */
  readonly trackingCode: string;
  /** The status it reports. */
  readonly status: string;
  /** The record's creation time, Unix seconds, read from the end of its tracking code. */
  readonly recordTime: number;
  /** The inbox's horizon, Unix seconds: records at or before it are refused unless their key is kept. */
  readonly horizon: number;
  /** Made by an inbox that refuses a callback older than its horizon. */
  constructor(details: { readonly trackingCode: string; readonly status: string; readonly recordTime: number; readonly horizon: number }) {
    super(
      `the record of ${details.trackingCode} (${details.status}) was made at ${details.recordTime}, at or before the inbox's horizon ${details.horizon} (Unix seconds): ` +
        'its key may have been pruned, so it was not applied; reconcile it by hand',
    );
    this.trackingCode = details.trackingCode;
    this.status = details.status;
    this.recordTime = details.recordTime;
    this.horizon = details.horizon;
  }
}
