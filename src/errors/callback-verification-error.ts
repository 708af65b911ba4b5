import { PayorchError } from './payorch-error.js';
import type { ValidationIssue } from './request-validation-error.js';
import { brand } from './brand.js';

/**
 * Why a callback was refused.
 *
 * - `missing_header`: X-Api-Key, X-Timestamp or X-Hash is absent, empty, given more than once,
 *   or not text; or a callback that must carry them (every kind but the dealer card) came without.
 * - `invalid_signature`: the hash does not match, or the body's `hash` / `timestamp` disagree
 *   with X-Hash / X-Timestamp.
 * - `timestamp_out_of_tolerance`: the signed timestamp is older than `maxAgeSeconds` (3 days by
 *   default) or further in the future than `toleranceSeconds` (300 s by default).
 * - `api_key_mismatch`: X-Api-Key is not the API key this receiver was given.
 * - `malformed_body`: the body is not a JSON object of sane size, or lacks a signed field; nothing
 *   was verified.
 * - `unreadable_payload`: the hash verified, but the body still does not fit the schema of its
 *   kind after every plausible variant was normalised (see `issues`). Answered 500, not 400: the
 *   callback is genuine, and a redelivery applies once the SDK or the service is fixed.
 * - `invalid_tracking_code`: `tracking_code` is not a tracking code of spec 2.1; checked before
 *   the hash, because an empty one makes the callback hash equal a request's X-Hash.
 * - `invalid_status`: `status` is empty or not a status word; checked before the hash, likewise.
 * - `kind_mismatch`: the `kind` the receiver named contradicts the tracking code prefix (a
 *   withdrawal code sent to a deposit receiver).
 */
export type CallbackVerificationReason =
  | 'missing_header'
  | 'invalid_signature'
  | 'timestamp_out_of_tolerance'
  | 'api_key_mismatch'
  | 'malformed_body'
  | 'unreadable_payload'
  | 'invalid_tracking_code'
  | 'invalid_status'
  | 'kind_mismatch';

/**
 * The HTTP status a receiver answers for each reason: 401 for every authentication failure
 * (spec 5.3 names it for a hash mismatch; 7.1 uses it for the same failures of requests), 400
 * for a request that cannot be processed before its hash is trusted, 500 for a genuine callback
 * whose payload cannot be typed (so that it is redelivered once fixed). Any non-2xx status tells
 * the service that the delivery failed (spec 6.1).
 */
const STATUS = {
  missing_header: 401,
  invalid_signature: 401,
  timestamp_out_of_tolerance: 401,
  api_key_mismatch: 401,
  malformed_body: 400,
  unreadable_payload: 500,
  invalid_tracking_code: 400,
  invalid_status: 400,
  kind_mismatch: 400,
} as const satisfies Record<CallbackVerificationReason, number>;

/**
 * A callback failed verification: answer `status` and do not act on the body. The message says
 * what failed and never holds the secret key, the API key or any hash.
 *
 * @example
 * ```ts
 * try {
 *   const callback = verifyCallback({ headers: req.headers, body: rawBody }, { apiKey, secretKey });
 *   await process(callback);
 *   res.writeHead(200).end('{"success":true}');
 * } catch (error) {
 *   if (!(error instanceof CallbackVerificationError)) throw error;
 *   res.writeHead(error.status).end(JSON.stringify({ success: false, error: error.reason }));
 * }
 * ```
 */
export class CallbackVerificationError extends PayorchError {
  static {
    brand(this, 'CallbackVerificationError');
  }
  /** Which check failed, in the order they run (see {@link CallbackVerificationReason}); a receiver answers it as `error`. */
  readonly reason: CallbackVerificationReason;
  /** The HTTP status to answer: 401 for authentication failures, 400 for an unusable body, 500 for a genuine callback that cannot be typed. */
  readonly status: 400 | 401 | 500;
  /** True when the hash verified before the refusal (`unreadable_payload`): the callback is genuine, do not drop it. */
  readonly signatureVerified: boolean;
  /** For `malformed_body` and `unreadable_payload`: each field and rule that failed; empty otherwise. */
  readonly issues: readonly ValidationIssue[];
  /** Made by the verifier; `reason` says which check failed. */
  constructor(reason: CallbackVerificationReason, message: string, issues: readonly ValidationIssue[] = []) {
    super(`Callback refused (${reason}): ${message}`);
    this.reason = reason;
    this.status = STATUS[reason];
    this.issues = issues;
    this.signatureVerified = reason === 'unreadable_payload';
  }
}
