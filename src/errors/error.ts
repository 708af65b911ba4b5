/*
 * Every error payorch throws but those only a client's call needs (api-error.ts) and the
 * PostgreSQL inbox's (payorch/postgres): the base class and its `outcome`, each subclass, and the
 * guard that recognises them across copies of the package. It imports neither the transport nor
 * zod, so every entry point (payorch/webhooks included) can load it. The package holds one copy of
 * these classes, in the one file every entry imports payorch/webhooks' modules from
 * (tsup.config.ts).
 */

import { brandChain, markOf, OWN_BRAND } from './brand.js';
import type { ErrorClass } from './brand.js';
import { callLabel, outcomeSentence } from './call-message.js';
import type { CallOutcome, FailedCall } from './call-message.js';

export type { CallOutcome, FailedCall } from './call-message.js';

/**
 * Whether `value` is an error payorch throws, or, given `errorClass`, an instance of that class or
 * one of its subclasses: from this copy of payorch or another (its ESM and CommonJS builds loaded
 * side by side, or two installed versions), as `instanceof` does. Works for every error class
 * of every entry point (`SandboxError` of `payorch/sandbox` included).
 *
 * @example
 * ```ts
 * import { APIError, AuthenticationError, isPayorchError } from 'payorch';
 * import type { ProviderClient } from 'payorch';
 * declare const provider: ProviderClient;
 * try {
 *   await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
 * } catch (error) {
 *   if (isPayorchError(error, AuthenticationError)) console.error('check the keys:', error.reason);
 *   else if (isPayorchError(error, APIError)) console.error(error.status, error.error);
 *   else if (isPayorchError(error)) console.error(error.name, error.outcome);
 *   else throw error;
 * }
 * ```
 */
export function isPayorchError(value: unknown): value is PayorchError;
export function isPayorchError<T extends PayorchError>(value: unknown, errorClass: abstract new (...args: never[]) => T): value is T;
export function isPayorchError(value: unknown, errorClass?: ErrorClass): boolean {
  const name = errorClass === undefined ? 'PayorchError' : ownBrand(errorClass);
  return typeof value === 'object' && value !== null && (value as Partial<Record<symbol, unknown>>)[markOf(name)] === true;
}

// The brand of a payorch error class; none for a class of the caller's own, even one extending
// PayorchError, which carries no mark of its own.
function brandNameOf(errorClass: ErrorClass): string | undefined {
  brandChain(errorClass);
  const prototype = errorClass.prototype as Partial<Record<symbol, unknown>>;
  const name = Object.hasOwn(prototype, OWN_BRAND) ? prototype[OWN_BRAND] : undefined;
  return typeof name === 'string' ? name : undefined;
}

// Each class's mark, found once: `instanceof` runs on every callback body and every failed call.
const MARKS = new WeakMap<ErrorClass, symbol | undefined>();
function markOfClass(errorClass: ErrorClass): symbol | undefined {
  if (MARKS.has(errorClass)) return MARKS.get(errorClass);
  const name = brandNameOf(errorClass);
  const mark = name === undefined ? undefined : markOf(name);
  MARKS.set(errorClass, mark);
  return mark;
}

function ownBrand(errorClass: ErrorClass): string {
  const name = brandNameOf(errorClass);
  if (name === undefined) {
    throw new RequestValidationError('isPayorchError', [{ field: 'errorClass', rule: 'invalid_argument', message: `${errorClass.name || 'the class given'} is not an error class of payorch` }]);
  }
  return name;
}

/**
 * Base class of every error payorch throws. Catch this to handle any SDK failure, and read
 * `outcome` to know whether money may have moved.
 *
 * Every subclass sets its own `name`, so an error stays recognisable in a log, and `instanceof`
 * holds across copies of the package (its ESM and CommonJS builds side by side).
 *
 * @example
 * ```ts
 * import { PayorchError } from 'payorch';
 * import type { ProviderClient } from 'payorch';
 * declare const provider: ProviderClient;
 * try {
 *   await provider.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 });
 * } catch (error) {
 *   if (error instanceof PayorchError && error.outcome === 'unknown') console.error('the deposit may exist: wait for its callback');
 *   throw error;
 * }
 * ```
 */
export class PayorchError extends Error {
  /** The name it is branded with (brand.ts). @internal */
  static readonly brandName: string = 'PayorchError';
  /**
   * Whether the service may have acted on the call, and so whether money may have moved:
   * - `not_sent`: nothing reached the service (input refused, name not resolved, connection
   *   refused, TLS handshake failed, aborted before sending). Sending it again is safe.
   * - `refused`: the service answered with a refusal (a 4xx, `success: false`); nothing was created.
   * - `unknown`: it may have been processed (a timeout or reset after sending, a 5xx, an answer
   *   payorch cannot read). Do not send a payment again: wait for its callback, or read its status
   *   (docs/errors-and-retries.md).
   *
   * Errors that do not come from a call to the service (a refused callback, a local check) say
   * `unknown` unless they know better; every error a client method raises sets it.
   */
  // The values written out, not `CallOutcome`: a hover then shows them without a second one.
  readonly outcome: 'not_sent' | 'refused' | 'unknown';

  /**
   * `instanceof` across copies of payorch: an error of another copy (the CommonJS build beside
   * the ESM one, a second copy a loader or test runner made) is an instance of this copy's class
   * of the same name, as `isPayorchError` tells. A class of your own extending one of these is
   * checked by its prototype chain only.
   */
  // `this` typed by its prototype, not a constructor: a subclass of yours may hide its constructor.
  static override [Symbol.hasInstance]<T>(this: { readonly prototype: T }, value: unknown): value is T {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== 'object' || value === null) return false;
    const mark = markOfClass(this as unknown as ErrorClass);
    return mark !== undefined && (value as Partial<Record<symbol, unknown>>)[mark] === true;
  }

  /** Made by the SDK's error classes: the standard `cause`, and the call's {@link CallOutcome} (`unknown` when not given). */
  constructor(message?: string, options: { readonly cause?: unknown; readonly outcome?: CallOutcome | undefined } = {}) {
    // Before Error's constructor, which reads `name` for the stack's first line.
    brandChain(new.target);
    // Only a given cause becomes `cause`: Error defines the property whenever the key is present.
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    // The one unsure default: a failure nobody classified must not read as "safe to resend".
    this.outcome = options.outcome ?? 'unknown';
  }
}

/** One rule a value broke: the dotted field path, the rule's code and a readable message. */
export interface ValidationIssue {
  /**
   * Where the value is: a dotted path into the body (`amount`, `extra.wallet_number`), an option's
   * name (`timeout`, `maxRetries`), several names joined by `, ` for unknown fields, or `''` for
   * the body itself.
   */
  readonly field: string;
  /**
   * The rule that failed, for code to branch on: a zod issue code for a schema rule (for example
   * `invalid_type`, `too_small`, `too_big`, `invalid_format`, `invalid_value`, `unrecognized_keys`,
   * `custom`), or one of payorch's own: `required`, `invalid_option`, `invalid_argument` (an
   * argument a call was given, such as `receiver.on`'s event), `invalid_path`, `not_allowed`,
   * `header_name`, `header_value`.
   */
  readonly rule: string;
  /** What is wrong and what is allowed, in English, for people (`must be at least 10`); it names no secret. */
  readonly message: string;
}

/**
 * The SDK refused a request before sending anything (`outcome` is always `not_sent`): a field is missing, has the wrong
 * type, or breaks a rule of the spec (minimum amount, IBAN length, date range); or an option given to
 * a constructor or a call is impossible (rule `invalid_option`, `baseUrl` included: the message then
 * reads "Invalid option for new ProviderClient: …"); or an argument is not one the call takes (rule
 * `invalid_argument`: "Invalid argument to receiver.on: …").
 *
 * @example
 * ```ts
 * import { RequestValidationError } from 'payorch';
 * import type { ProviderClient } from 'payorch';
 * declare const provider: ProviderClient;
 * try {
 *   await provider.manual.startWithdrawal({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 100, iban: 'TR12' });
 * } catch (error) {
 *   if (error instanceof RequestValidationError) console.log(error.issues); // [{ field: 'iban', rule: 'too_small', ... }]
 * }
 * ```
 */
export class RequestValidationError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'RequestValidationError';
  /** Every rule the request broke, at least one; nothing was sent. */
  readonly issues: readonly ValidationIssue[];
  /** Made by the SDK when a request breaks its schema; `operation` names the call. */
  constructor(operation: string, issues: readonly ValidationIssue[]) {
    // A refused option or argument is no fault of the request's fields: the message says which it is.
    const subject = issues.length === 0 ? 'Invalid request to' : issues.every((issue) => issue.rule === 'invalid_option') ? 'Invalid option for' : issues.every((issue) => issue.rule === 'invalid_argument') ? 'Invalid argument to' : 'Invalid request to';
    super(`${subject} ${operation}: ${issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`).join('; ')}`, { outcome: 'not_sent' });
    this.issues = issues;
  }
}

/**
 * Where a connection failed. All but `connection_failed` end before the request's first byte
 * could leave: the name did not resolve, the connection was refused, found no route to the host
 * or was never established, the TLS handshake failed, or the runtime did not permit connecting
 * (docs/errors-and-retries.md has each runtime's signs).
 */
export type ConnectionFailureReason = 'name_not_resolved' | 'connection_refused' | 'host_unreachable' | 'connect_timeout' | 'tls_handshake' | 'not_permitted' | 'connection_failed';

const DESCRIPTIONS: Readonly<Record<ConnectionFailureReason, string>> = {
  name_not_resolved: 'the host name did not resolve',
  connection_refused: 'the connection was refused',
  host_unreachable: 'the host could not be reached (no route to it)',
  connect_timeout: 'the connection was not established in time',
  tls_handshake: 'the TLS handshake failed (certificate or protocol)',
  not_permitted: 'the runtime does not permit connecting to the service (Deno: --allow-net for its host; Node with --permission: --allow-net; fetch blocks some ports, such as 6000 and 10080)',
  connection_failed: 'the connection failed after the request may have left',
};

/**
 * No usable answer came back: the name did not resolve, the connection was refused, the TLS
 * handshake failed, or the connection was reset or broke mid-body. `outcome` is `not_sent` when
 * the failure came before the request could leave (every `reason` but `connection_failed`),
 * `unknown` otherwise.
 */
export class ConnectionError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'ConnectionError';
  /**
   * `true` when the connection was refused (`ECONNREFUSED` or the platform's equivalent, or a
   * reset before the connection was made: `connect ECONNRESET`): nothing
   * reached the service, and payorch resends even a payment-creating call. `false` for every other
   * failure, those that also sent nothing included: read `outcome` and `reason` for them.
   */
  readonly refused: boolean;
  /** Where the connection failed (see {@link ConnectionFailureReason}). */
  readonly reason: ConnectionFailureReason;
  /** The client method, its API first: `provider.manual.startDeposit`. */
  readonly operation: string;
  /** The method and the full URL of the request, query string included; never its headers, which carry the keys. */
  readonly request: { readonly method: string; readonly url: string };
  /** Made by the SDK when no answer came back; `reason` says where the connection failed. */
  constructor(options: FailedCall & { readonly cause: unknown; readonly reason: ConnectionFailureReason; readonly outcome?: CallOutcome | undefined }) {
    const sentNothing = options.reason !== 'connection_failed';
    const outcome = options.outcome ?? (sentNothing ? 'not_sent' : 'unknown');
    super(`${callLabel(options)}: ${DESCRIPTIONS[options.reason]}. ${outcomeSentence(outcome, options)}`, { cause: options.cause, outcome });
    this.refused = options.reason === 'connection_refused';
    this.reason = options.reason;
    this.operation = options.operation;
    this.request = options.request;
  }
}

/**
 * A string is not a tracking code of spec 2.1 (`PREFIX-segment-unixSeconds`, for example
 * `MAN-a8Xk29Qp-1763812000`) nor a transfer id (`TRF-segment`).
 *
 * @example
 * ```ts
 * import { parseTrackingCode, TrackingCodeError } from 'payorch';
 * try {
 *   parseTrackingCode('ORDER-42');
 * } catch (error) {
 *   if (error instanceof TrackingCodeError) console.log(error.value); // 'ORDER-42'
 * }
 * ```
 */
export class TrackingCodeError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'TrackingCodeError';
  /** The value that was given, cut to 64 characters. */
  readonly value: string;
  /** Made by the tracking-code parser; names what is wrong with the code. */
  constructor(value: unknown) {
    const shown = typeof value === 'string' ? value.slice(0, 64) : `(${typeof value})`;
    super(
      `Not a tracking code: "${shown}". Expected a prefix of spec 2.1 (MAN, WIT, EIBAN, EIBAN-WIT, CC, TPBD, TPBW, TPCD, TPCW, TPWD, TPWW, DEP, WDR), ` +
        'a hyphen, an alphanumeric segment, a hyphen and Unix seconds (MAN-a8Xk29Qp-1763812000), or TRF- and an alphanumeric segment.',
      { outcome: 'not_sent' },
    );
    this.value = shown;
  }
}

/**
 * Why a callback was refused.
 *
 * - `missing_header`: X-Api-Key, X-Timestamp or X-Hash is absent; or a callback that must carry
 *   them (every kind but the dealer card) came without.
 * - `repeated_header`: X-Api-Key, X-Timestamp or X-Hash is given more than once.
 * - `empty_header`: X-Api-Key, X-Timestamp or X-Hash is empty, or not text.
 * - `invalid_signature`: the hash does not match, or the body's `hash` / `timestamp` disagree
 *   with X-Hash / X-Timestamp.
 * - `timestamp_out_of_tolerance`: the signed timestamp is older than `maxAgeSeconds` (3 days by
 *   default) or further in the future than `toleranceSeconds` (300 s by default).
 * - `api_key_mismatch`: X-Api-Key is not the API key this receiver was given.
 * - `merchant_mismatch`: a job given to `receiver.apply` is another merchant's (`merchantId`).
 * - `seal_key_expired`: a job given to `receiver.apply` was sealed with `previousSecretKey` after
 *   its `until`. Not a forgery's reason (a changed or forged job is `invalid_signature`): re-seal it
 *   with the key that sealed it (`resealCallbackJob`, which refuses a job that key did not seal).
 * - `seal_key_unknown`: a job given to `receiver.apply` was sealed with a key this receiver does
 *   not hold: a newer one (a worker not yet deployed with a rotation's keys) or one it dropped.
 *   Retried, so that a worker holding that key applies it (`CallbackJobError.retryable`).
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
  | 'repeated_header'
  | 'empty_header'
  | 'invalid_signature'
  | 'timestamp_out_of_tolerance'
  | 'api_key_mismatch'
  | 'merchant_mismatch'
  | 'seal_key_expired'
  | 'seal_key_unknown'
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
  repeated_header: 401,
  empty_header: 401,
  invalid_signature: 401,
  timestamp_out_of_tolerance: 401,
  api_key_mismatch: 401,
  merchant_mismatch: 401,
  seal_key_expired: 401,
  seal_key_unknown: 401,
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
 * import type { IncomingMessage, ServerResponse } from 'node:http';
 * import { CallbackVerificationError, verifyCallback } from 'payorch';
 * import type { VerifiedCallback } from 'payorch';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * declare const req: IncomingMessage;
 * declare const res: ServerResponse;
 * declare const rawBody: Buffer;
 * declare function applyOnce(callback: VerifiedCallback): Promise<void>;
 * try {
 *   const callback = verifyCallback({ headers: req.headers, body: rawBody }, { apiKey, secretKey });
 *   await applyOnce(callback);
 *   res.writeHead(200).end('{"success":true}');
 * } catch (error) {
 *   if (!(error instanceof CallbackVerificationError)) throw error;
 *   res.writeHead(error.status).end(JSON.stringify({ success: false, error: error.reason }));
 * }
 * ```
 */
export class CallbackVerificationError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'CallbackVerificationError';
  /** Which check failed, in the order they run (see {@link CallbackVerificationReason}); a receiver answers it as `error`. */
  readonly reason: CallbackVerificationReason;
  /** The HTTP status to answer: 401 for authentication failures, 400 for an unusable body, 500 for a genuine callback that cannot be typed. */
  readonly status: 400 | 401 | 500;
  /**
   * True when the hash verified with this receiver's keys before the refusal: the service sent
   * it. Always for `unreadable_payload` (do not drop it: answer 500) and
   * `timestamp_out_of_tolerance` (the age is judged after the hash: look at this machine's clock);
   * for `kind_mismatch` when its hash verifies (a genuine callback of another kind at this URL);
   * for `missing_header` when a body without headers verifies by its own hash and timestamp (a
   * dealer card callback, spec 6.5, at a receiver not set for it).
   */
  readonly signatureVerified: boolean;
  /** For `malformed_body` and `unreadable_payload`: each field and rule that failed; empty otherwise. */
  readonly issues: readonly ValidationIssue[];
  /** Made by the verifier; `reason` says which check failed, `signatureVerified` whether the hash had verified. */
  constructor(reason: CallbackVerificationReason, message: string, issues: readonly ValidationIssue[] = [], signatureVerified = reason === 'unreadable_payload') {
    super(`Callback refused (${reason}): ${message}`);
    this.reason = reason;
    this.status = STATUS[reason];
    this.issues = issues;
    this.signatureVerified = signatureVerified;
  }
}

/**
 * The field of a {@link CallbackJob} that `receiver.apply` refused: `seal` (the receiver's seal
 * does not match: the job was changed or written in the queue; or it was sealed with a key past
 * its window), `signature` (the service's hash does not verify with this receiver's keys),
 * `receivedAt` (too old for the age limit, or in the future), `merchantId` (another merchant's job),
 * `kind` and `event` (they disagree with what the signed fields and the body say), `payload` (not
 * a callback body), or `job` (not a job at all).
 */
export type CallbackJobField = 'job' | 'merchantId' | 'kind' | 'event' | 'payload' | 'receivedAt' | 'signature' | 'seal';

/**
 * `receiver.apply(job)` refused a job: it was written or changed without the secret key, it was
 * sealed with a key past its window or one this receiver does not hold, it is another merchant's,
 * or its receipt time is too old or in this worker's future. Nothing was applied or recorded. A
 * {@link CallbackVerificationError}: `reason` is the check that failed, as for a received callback
 * (`invalid_signature`, `timestamp_out_of_tolerance`, `merchant_mismatch` for another merchant,
 * `kind_mismatch`, `malformed_body`), or `seal_key_expired` / `seal_key_unknown` for the seal's key,
 * and `field` names the job's field. When `retryable` is false retrying cannot make it verify: let
 * the engine move it to its dead letters. A `seal_key_expired` job is re-sealed with
 * `resealCallbackJob` and applied; an `invalid_signature` one was changed or written in the queue:
 * find out by whom.
 *
 * @example
 * ```ts
 * import type { PgBoss } from 'pg-boss';
 * import { CallbackJobError } from 'payorch';
 * import type { CallbackInboxContext, CallbackJob, CallbackReceiver, Logger } from 'payorch';
 * declare const receiver: CallbackReceiver<CallbackInboxContext>;
 * declare const boss: PgBoss;
 * declare const logger: Logger;
 * await boss.work<CallbackJob>('payorch-callbacks', async ([job]) => {
 *   if (job === undefined) return;
 *   try {
 *     await receiver.apply(job.data);
 *   } catch (error) {
 *     if (error instanceof CallbackJobError) logger.error({ field: error.field, reason: error.reason }, error.reason === 'seal_key_expired' ? 'callback job sealed before a key rotation: re-seal it' : 'forged callback job');
 *     throw error;
 *   }
 * });
 * ```
 */
export class CallbackJobError extends CallbackVerificationError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'CallbackJobError';
  /** Which field of the job failed its check. */
  readonly field: CallbackJobField;
  /**
   * True when another worker, or this one later, may apply the job: it was sealed with a key this
   * worker does not hold (`seal_key_unknown`: a rolling deploy of a key rotation), or received in
   * this worker's future (`timestamp_out_of_tolerance` of `receivedAt`: a clock behind the
   * receiver's). The queue adapters retry it as any passing failure; every other refusal is a dead
   * letter at once.
   */
  readonly retryable: boolean;
  /** Made by `receiver.apply`; `reason` and `field` say which check failed, `retryable` whether another attempt may pass it. */
  constructor(reason: CallbackVerificationReason, field: CallbackJobField, message: string, issues: readonly ValidationIssue[] = [], retryable = reason === 'seal_key_unknown') {
    super(reason, message, issues);
    this.field = field;
    this.retryable = retryable;
  }
}

/**
 * A callback's record is not younger than the inbox's horizon, and its key is not held: the inbox
 * may have forgotten that it applied it, so it does not apply it (again). Nothing was recorded.
 * The receiver answers 422 `record_too_old` and tells `onError` (phase `'retention'`) with the
 * callback: reconcile it by hand against your own record (docs/inboxes.md, "Retention").
 *
 * It carries the tracking code and status, not the key's merchant id (the receiver's own setting,
 * or a digest of its API key).
 *
 * @example
 * ```ts
 * import { CallbackRetentionError, createCallbackReceiver, isPayorchError } from 'payorch';
 * import type { ReportedCallback } from 'payorch';
 * declare function reconcileByHand(callback: ReportedCallback | undefined, recordTime: number): void;
 * createCallbackReceiver({
 *   apiKey: 'api',
 *   secretKey: 'secret',
 *   onError: (error, { callback }) => {
 *     if (isPayorchError(error, CallbackRetentionError)) reconcileByHand(callback, error.recordTime);
 *   },
 * });
 * ```
 */
export class CallbackRetentionError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'CallbackRetentionError';
  /** The callback's tracking code. */
  readonly trackingCode: string;
  /** The status it reports. */
  readonly status: string;
  /** The record's creation time, Unix seconds, read from the end of the tracking code. */
  readonly recordTime: number;
  /** The inbox's horizon, Unix seconds: records created at or before it are not applied unless their key is held. */
  readonly horizon: number;

  /** Made by the inboxes, from the callback's key (a `CallbackKey`; its merchant id is not kept). */
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

/**
 * `confirm` refused a verified callback (it returned anything but `true`): nothing was applied or
 * recorded, so `outcome` is `refused`. The receiver answers 409 `not_confirmed` and tells `onError`
 * (phase `'confirm'`); `receiver.apply(job)` rejects with it, and the queue retries the job, then
 * keeps it as a dead letter: tell it from a handler's failure to skip paging for it.
 *
 * @example
 * ```ts
 * import { isPayorchError, NotConfirmedError } from 'payorch';
 * import type { CallbackInboxContext, CallbackJob, CallbackReceiver } from 'payorch';
 * declare const receiver: CallbackReceiver<CallbackInboxContext>;
 * declare const job: CallbackJob;
 * try {
 *   await receiver.apply(job);
 * } catch (error) {
 *   if (isPayorchError(error, NotConfirmedError)) console.warn('refused by confirm, nothing applied:', error.message);
 *   throw error;
 * }
 * ```
 */
export class NotConfirmedError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'NotConfirmedError';
  /** Made by the receiver when `confirm` refuses. */
  constructor(message: string) {
    super(message, { outcome: 'refused' });
  }
}

/**
 * No handler takes a verified callback and the receiver's `unhandled: 'retry'` asks for it again:
 * nothing was applied (`outcome` `refused`). The receiver answers 500 `no_handler` and tells
 * `onError` (phase `'unhandled'`); `receiver.apply(job)` rejects with it. Register the handler (or
 * `'*'`), and the redelivery applies.
 */
export class UnhandledError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'UnhandledError';
  /** Made by the receiver when no handler takes a callback under `unhandled: 'retry'`. */
  constructor(message: string) {
    super(message, { outcome: 'refused' });
  }
}

/**
 * What a receiver's `onError` is told when code that is not payorch's failed on a callback: a
 * handler, `confirm` or `enqueue` threw, or an inbox's driver failed, with something that is not a
 * {@link PayorchError}. The value as thrown is `cause`, and `phase` says what threw (as
 * `onError`'s `details.phase`). Only `onError` sees it: the answer is 500 (the service delivers
 * again), and `receiver.apply` rejects with the value as thrown. `outcome` is `refused` for
 * `confirm` (no handler ran), `unknown` otherwise (a handler may have acted).
 *
 * @example
 * ```ts
 * import { CallbackHandlingError, createCallbackReceiver, isPayorchError } from 'payorch';
 * createCallbackReceiver({
 *   apiKey: 'api',
 *   secretKey: 'secret',
 *   onError: (error, { callback }) => {
 *     if (isPayorchError(error, CallbackHandlingError)) console.error(`${error.phase} failed on ${callback?.payload.tracking_code ?? 'a request'}:`, error.cause);
 *     else console.error(error.name, error.message);
 *   },
 * });
 * ```
 */
export class CallbackHandlingError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'CallbackHandlingError';
  /** What threw: a handler, `confirm`, `enqueue`, the inbox, or (`request`) the receive path around them. */
  readonly phase: 'handler' | 'confirm' | 'enqueue' | 'inbox' | 'request';

  /** Made by the receiver for `onError`, around what `phase` threw. */
  constructor(phase: CallbackHandlingError['phase'], cause: unknown) {
    const thrown = cause instanceof Error ? `${cause.name}: ${cause.message}` : `${typeof cause} ${String(cause)}`;
    const what = { handler: 'a handler', confirm: 'confirm', enqueue: 'enqueue', inbox: 'the inbox', request: 'the receive path' }[phase];
    super(`The callback was not applied: ${what} threw ${thrown.length > 300 ? `${thrown.slice(0, 299)}…` : thrown}`, { cause, outcome: phase === 'confirm' ? 'refused' : 'unknown' });
    this.phase = phase;
  }
}

/**
 * An inbox could not apply a callback with its key, and recorded nothing: its table has another
 * shape, another copy of the callback held the lock past `lockTimeoutMs`, a copy delivered at the
 * same time failed, or one of the cases its subclasses name ({@link InboxFullError},
 * {@link InboxCommitError}, {@link StatementPoolingError}). The receiver answers 500, so that the
 * service delivers the callback again, and tells `onError` (phase `'inbox'`). An error of the
 * database driver is its `cause`.
 *
 * @example
 * ```ts
 * import { createCallbackReceiver, InboxError, isPayorchError } from 'payorch';
 * declare const alerts: { page(message: string): void };
 * createCallbackReceiver({
 *   apiKey: 'api',
 *   secretKey: 'secret',
 *   onError: (error, { phase }) => {
 *     if (isPayorchError(error, InboxError)) alerts.page(`callback inbox (${phase}): ${error.message}`);
 *   },
 * });
 * ```
 */
export class InboxError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'InboxError';
}

/**
 * The in-memory inbox holds its `maxKeys` keys, none old enough to forget: the callback was not
 * applied, and the receiver answered 500 so that the service delivers it again later. Raise
 * `maxKeys` or use a database inbox (`payorch/postgres`).
 */
export class InboxFullError extends InboxError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'InboxFullError';
}

/**
 * The handlers returned, but the inbox could not commit their changes with the callback's key:
 * PostgreSQL aborted the inbox's transaction (a statement of a handler failed, a `lock_timeout`
 * for example, and the handler caught the error), the COMMIT itself failed, a handler sent its own
 * BEGIN, COMMIT or ROLLBACK on the client (refused, and the callback then not applied) or ended the
 * transaction another way, or a D1 batch failed (a statement
 * a handler pushed broke a constraint, or another status of the tracking code was applied
 * meanwhile). Nothing is recorded as applied, so the receiver answers 500 and tells `onError`,
 * and the service's redelivery applies the callback once; except after a handler's own COMMIT,
 * which recorded the key: the redelivery is then a duplicate, as the message says. What the handlers did outside the transaction
 * (a `fetch`, an e-mail) happened, and happens again on the redelivery: give it
 * `callbackKeyString(key)` as its idempotency key.
 *
 * @example
 * ```ts
 * import { createCallbackReceiver, InboxCommitError, isPayorchError } from 'payorch';
 * declare const metrics: { increment(name: string, attributes: object): void };
 * createCallbackReceiver({
 *   apiKey: 'api',
 *   secretKey: 'secret',
 *   onError: (error, { callback }) => {
 *     if (isPayorchError(error, InboxCommitError)) metrics.increment('callbacks.rolled_back', { kind: callback?.kind });
 *   },
 * });
 * ```
 */
export class InboxCommitError extends InboxError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'InboxCommitError';
}

/**
 * A pool behind a pooler in statement pooling (PgBouncer's `pool_mode = statement`), which refuses
 * every transaction block: no callback can be applied together with its key there, and no table
 * created or migrated. From the inbox, nothing was applied or recorded; the receiver answers 500 and
 * tells `onError` (phase `'inbox'`). Also thrown by `prunePostgresInbox` and by the creation of the
 * inbox's and the dead letters' tables. Connect the pool in transaction or session pooling, or
 * directly (docs/inboxes.md, "Poolers").
 */
export class StatementPoolingError extends InboxError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'StatementPoolingError';
}

/**
 * A queue adapter could not do what it was asked: the engine did not take a job (pg-boss answers
 * `null` on a queue whose policy is not `standard`), a batch of another queue reached its consumer,
 * or its dead letters' table has another shape. Nothing was queued or replayed; the engine's own error, if any, is its
 * `cause`. A receiver whose `enqueue` rejects with it answers 500, so the service delivers the
 * callback again. A failed attempt of a BullMQ worker reaches BullMQ as one too, whose `cause` is
 * the error as the handler threw it.
 *
 * @example
 * ```ts
 * import { isPayorchError, QueueError } from 'payorch';
 * import type { PgBossQueue } from 'payorch/pg-boss';
 * declare const queue: PgBossQueue;
 * declare const ids: string[]; // dead letters to send again
 * try {
 *   await queue.deadLetters.replay({ ids });
 * } catch (error) {
 *   if (isPayorchError(error, QueueError)) console.error('not replayed:', error.message);
 *   else throw error;
 * }
 * ```
 */
export class QueueError extends PayorchError {
  /** The name it is branded with (brand.ts). @internal */
  static override readonly brandName: string = 'QueueError';
}
