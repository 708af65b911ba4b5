import type { CallbackBody } from './body.js';
import type { VerifiedCallback } from './schemas.js';
import type { JobSeal } from './seal.js';
import type { CardStatusReadPayload } from './status-read.js';
import type { Verifier } from './verify.js';
import { CallbackJobError, CallbackVerificationError } from '../errors/error.js';
import type { CallbackJobField, CallbackVerificationReason } from '../errors/error.js';

/*
 * A verified callback put on the merchant's queue, and its check when it comes back. The job
 * carries the receiver's seal over all of it and the service's own signature, never a secret key:
 * `apply` checks the seal, then verifies the signature again with the receiver's keys through the
 * receiver's own verifier, with the clock set to the receipt time the seal vouches for, so that a
 * job is trusted exactly as far as the callback it came from (docs/decisions.md).
 */

/**
 * What `enqueue` gets, for `receiver.apply(job)` to apply later: a verified callback
 * ({@link SignedCallbackJob}), or a card payment's status read by `receiver.reconcile`
 * ({@link StatusReadJob}, `source: 'status'`). A plain object that survives `JSON.stringify` and
 * `JSON.parse`: store it as your queue engine stores data (BullMQ `queue.add(name, job)`,
 * Cloudflare `queue.send(job)`), in PostgreSQL as JSON text (pg-boss `send(name, { job:
 * JSON.stringify(job) })`): jsonb refuses a `\u0000` or a lone surrogate, which a name may hold.
 *
 * Opaque but stable: read `kind`, `event` and `payload` to route or log it if you wish, but
 * change nothing: the receiver's `seal` covers every field, and `apply` refuses a job whose seal
 * does not match. Fields are only added in later versions; a change of meaning gets a new `version`.
 */
export type CallbackJob = SignedCallbackJob | StatusReadJob;

/**
 * A verified callback as `enqueue` gets it. It holds no secret key; it holds the receiver's seal
 * over the whole job (payload and receipt time included) and the service's hash, which `apply`
 * both checks again with the receiver's keys, so a job written or changed without the secret key
 * applies nothing.
 */
export interface SignedCallbackJob {
  /** The format of the job: 2 (sealed). */
  readonly version: 2;
  /** Absent: a job of a callback. `'status'` is a {@link StatusReadJob}. */
  readonly source?: undefined;
  /** The receiver's `merchantId` (a digest of its API key when none is given): `apply` refuses another merchant's job. */
  readonly merchantId: string;
  /** The callback's kind, as `verifyCallback` told it. */
  readonly kind: VerifiedCallback['kind'];
  /** The handlers' event: `'<kind>.<status>'`. */
  readonly event: string;
  /** The verified payload (`VerifiedCallback['payload']`), every field the service sent. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** When the receiver got the callback, in milliseconds since the epoch: the age limit is measured at this time. */
  readonly receivedAt: number;
  /** The W3C trace context of the span that received the callback; absent without a tracer. */
  readonly traceContext?: { readonly traceparent: string } | undefined;
  /**
   * The callback's signature: its hash, the Unix timestamp it signs, and where it came
   * (`headers`: X-Api-Key, X-Timestamp and X-Hash; `body`: a dealer card callback without them,
   * spec 6.5).
   */
  readonly signature: { readonly hash: string; readonly timestamp: number; readonly in: 'headers' | 'body' };
  /** The receiver's seal over every other field, made with its secret key at receipt. */
  readonly seal: JobSeal;
}

/**
 * A card payment's end status read by `receiver.reconcile`, as `enqueue` gets it. It carries no
 * service signature, so it is a request to reconcile, not a payment: `apply` checks its seal, reads
 * the status from the service again (`apply(job, { provider })`) and applies what that read
 * says, under the same keys as the callback. Even a job sealed with the receiver's key applies
 * only what the service itself answers for this merchant.
 */
export interface StatusReadJob {
  /** The format of the job: 2 (sealed). */
  readonly version: 2;
  readonly source: 'status';
  /** The receiver's `merchantId` (a digest of its API key when none is given): `apply` refuses another merchant's job. */
  readonly merchantId: string;
  readonly kind: 'creditCard';
  /** `'creditCard.<status read>'`: `apply` reads the status again and applies what it then says. */
  readonly event: string;
  /** The status answer's fields (spec 2.6) at the time of `reconcile`. */
  readonly payload: CardStatusReadPayload;
  /** When the status was read, in milliseconds since the epoch. */
  readonly receivedAt: number;
  /** The receiver's seal over every other field, made with its secret key when the job was made. */
  readonly seal: JobSeal;
}

/** Whether a job was made by `reconcile` from a status read. */
export function isStatusReadJob(job: unknown): job is Readonly<Record<string, unknown>> {
  return isRecord(job) && job['source'] === 'status';
}

/** The job of a callback that verified, before its seal. */
export function callbackJob(callback: VerifiedCallback, signedIn: 'headers' | 'body', merchantId: string, receivedAt: number, traceparent: string | undefined): Omit<SignedCallbackJob, 'seal'> {
  const { payload } = callback;
  return {
    version: 2,
    merchantId,
    kind: callback.kind,
    event: `${callback.kind}.${payload.status}`,
    payload,
    receivedAt,
    ...(traceparent === undefined ? {} : { traceContext: { traceparent } }),
    signature: { hash: payload.hash, timestamp: payload.timestamp, in: signedIn },
  };
}

function refuse(reason: CallbackVerificationReason, field: CallbackJobField, message: string, retryable?: boolean): never {
  throw new CallbackJobError(reason, field, message, [], retryable);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which field of the job each refusal of verifyCallback points at. */
const FIELD_OF_REASON = {
  missing_header: 'signature',
  invalid_signature: 'signature',
  repeated_header: 'signature',
  empty_header: 'signature',
  api_key_mismatch: 'signature',
  merchant_mismatch: 'merchantId',
  timestamp_out_of_tolerance: 'receivedAt',
  malformed_body: 'payload',
  unreadable_payload: 'payload',
  invalid_tracking_code: 'payload',
  invalid_status: 'payload',
  kind_mismatch: 'kind',
  seal_key_expired: 'seal',
  seal_key_unknown: 'seal',
} as const satisfies Record<CallbackVerificationReason, CallbackJobField>;

/** What checking a job needs: the receiver's verifier, its merchant id and the clock. */
export interface JobCheck {
  readonly verifier: Verifier;
  readonly merchantId: string;
  readonly nowMs: number;
}

/**
 * The checks every job passes before anything in it is trusted: an object of this version, this
 * receiver's merchant id, and a seal of this receiver's keys (constant-time), `previousSecretKey`'s
 * only until its `until` at `nowMs`.
 * @throws {CallbackJobError} naming the field, with nothing applied
 */
export function checkJobSeal(job: unknown, check: JobCheck): asserts job is Readonly<Record<string, unknown>> {
  if (!isRecord(job)) refuse('malformed_body', 'job', 'the job is not an object (a CallbackJob, as enqueue got it)');
  // Unpublished versions are not read: a job of version 1 carried no seal.
  const version = job['version'];
  if (version !== 2) {
    refuse(
      'malformed_body',
      'job',
      typeof version === 'number' && version > 2
        ? `the job is a CallbackJob of version ${String(version)}, written by a later payorch; this one reads version 2: a worker of that version applies it (replay it there)`
        : `the job is not a CallbackJob of version 2 (sealed)${typeof version === 'number' ? `: version ${String(version)}, of a build before the first release, carried no seal and is not trusted` : ''}; apply its callback ${job['kind'] === 'creditCard' ? "from the service's status (receiver.reconcile)" : 'by hand, from the panel'}, then purge the dead letter`,
    );
  }
  // Before the seal: a job of another merchant that shares this one's inbox must not even be tried.
  if (job['merchantId'] !== check.merchantId) {
    if (typeof job['merchantId'] !== 'string') refuse('malformed_body', 'merchantId', 'merchantId is not text');
    refuse('merchant_mismatch', 'merchantId', 'the job is another merchant’s; this receiver applies its own only');
  }
  check.verifier.seals.check(job, check.nowMs);
}

/**
 * Checks a job as the receiver checked its callback and returns the callback it holds: its seal
 * (checkJobSeal), then the signature with this receiver's keys (verifyCallback, constant-time) and
 * the age limit at the receipt time, a receipt time not in the future, and the kind and event
 * told again from the signed fields and the body rather than taken from the job.
 *
 * @throws {CallbackJobError} naming the field, with nothing applied
 */
export function checkCallbackJob(job: unknown, check: JobCheck): VerifiedCallback {
  checkJobSeal(job, check);
  const { kind, event, payload, receivedAt, signature } = job;
  if (typeof kind !== 'string') refuse('malformed_body', 'kind', 'kind is not text');
  if (typeof event !== 'string') refuse('malformed_body', 'event', 'event is not text');
  if (!isRecord(payload)) refuse('malformed_body', 'payload', 'payload is not an object');
  if (typeof receivedAt !== 'number' || !Number.isFinite(receivedAt)) refuse('malformed_body', 'receivedAt', 'receivedAt is not a time in milliseconds');
  if (!isRecord(signature)) refuse('malformed_body', 'signature', 'signature is not an object');
  const { hash, timestamp, in: signedIn } = signature;
  if (typeof hash !== 'string' || typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0 || (signedIn !== 'headers' && signedIn !== 'body')) {
    refuse('malformed_body', 'signature', 'signature is not { hash, timestamp, in }');
  }
  const tolerance = check.verifier.toleranceSeconds;
  if (receivedAt - check.nowMs > tolerance * 1000) {
    // Retryable: the receiver's clock is ahead of this worker's, and a later attempt (or another
    // worker) sees the job in its past.
    refuse('timestamp_out_of_tolerance', 'receivedAt', `receivedAt is ${Math.round((receivedAt - check.nowMs) / 1000)} s in this worker's future; at most ${tolerance} s (toleranceSeconds) is accepted: the receiver's clock is ahead of the worker's (check NTP); it is retried`, true);
  }

  // The callback rebuilt as it arrived, its signed values from the signature, and verified by
  // the one verifier with the clock at the receipt time: its age, and the previous key's window,
  // as they were when it was received and answered 200.
  const body: Record<string, unknown> = { ...payload, timestamp, hash };
  const input: { headers?: Record<string, string>; body: CallbackBody } =
    signedIn === 'headers' ? { headers: { 'X-Api-Key': check.verifier.apiKey, 'X-Timestamp': String(timestamp), 'X-Hash': hash }, body } : { body };
  let callback: VerifiedCallback;
  try {
    callback = check.verifier.verify(input, { nowMs: receivedAt, rebuilt: true }).callback;
  } catch (error) {
    if (!(error instanceof CallbackVerificationError)) throw error;
    // The seal is this receiver's: a hash that no longer matches was made with a key it dropped.
    const hint = error.reason === 'invalid_signature' ? '. Its seal is this receiver’s, so the callback was signed with a secret key the receiver no longer holds: give it previousSecretKey again, with an until after the job’s receipt' : '';
    throw new CallbackJobError(error.reason, FIELD_OF_REASON[error.reason], `the job does not verify: ${error.message}${hint}`, error.issues);
  }
  if (callback.kind !== kind) refuse('kind_mismatch', 'kind', `the job says ${kind}, its signed fields and body say ${callback.kind}`);
  if (`${callback.kind}.${callback.payload.status}` !== event) refuse('kind_mismatch', 'event', `the job says ${event}, its signed fields say ${callback.kind}.${callback.payload.status}`);
  return callback;
}
