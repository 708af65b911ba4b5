import { brand } from './brand.js';
import { CallbackVerificationError } from './callback-verification-error.js';
import type { CallbackVerificationReason } from './callback-verification-error.js';
import type { ValidationIssue } from './request-validation-error.js';

/**
 * The field of a {@link CallbackJob} that `receiver.apply` refused: `signature` (the hash does not
 * verify with this receiver's keys, or the signed fields were changed), `receivedAt` (too old
 * for the age limit, or in the future), `account` (another account's job), `kind` and `event`
 * (they disagree with what the signed fields and the body say), `payload` (not a callback body),
 * or `job` (not a job at all).
 */
export type CallbackJobField = 'job' | 'account' | 'kind' | 'event' | 'payload' | 'receivedAt' | 'signature';

/**
 * `receiver.apply(job)` refused a job: it was written or changed without the secret key, it is
 * another account's, or it is too old at its receipt time. Nothing was applied or recorded. A
 * {@link CallbackVerificationError}: `reason` is the check that failed, as for a received
 * callback (`invalid_signature`, `timestamp_out_of_tolerance`, `api_key_mismatch` for another
 * account, `kind_mismatch`, `malformed_body`), and `field` names the job's field. Let the queue
 * engine move it to its dead letters: retrying cannot make it verify.
 *
 * @example
 * ```ts
 * await boss.work('payorch-callbacks', async ([job]) => {
 *   try {
 *     await receiver.apply(job.data);
 *   } catch (error) {
 *     if (error instanceof CallbackJobError) logger.error({ field: error.field, reason: error.reason }, 'forged callback job');
 *     throw error;
 *   }
 * });
 * ```
 */
export class CallbackJobError extends CallbackVerificationError {
  static {
    brand(this, 'CallbackJobError');
  }
  /** Which field of the job failed its check. */
  readonly field: CallbackJobField;
  /** Made by `receiver.apply`; `reason` and `field` say which check failed. */
  constructor(reason: CallbackVerificationReason, field: CallbackJobField, message: string, issues: readonly ValidationIssue[] = []) {
    super(reason, message, issues);
    this.field = field;
  }
}
