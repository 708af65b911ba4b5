import type { z } from 'zod';
import { assertNever } from '../core/assert-never.js';
import { callbackHash, constantTimeEqual } from '../core/signer.js';
import { toIssues } from '../core/validation.js';
import { CallbackVerificationError } from '../errors/callback-verification-error.js';
import { readCallbackBody } from './body.js';
import type { CallbackBody } from './body.js';
import { detectCallbackKind } from './detect-kind.js';
import { CALLBACK_KINDS, isCallbackKind } from './kinds.js';
import type { CallbackKind } from './kinds.js';
import { readSignatureHeaders } from './headers.js';
import type { CallbackHeaders } from './headers.js';
import { CreditCardCallback, DealerCreditCardCallback, DepositCallback, SignedCallbackFields, WithdrawalCallback } from './schemas.js';
import type { VerifiedCallback } from './schemas.js';

/** A received callback: its headers and its body, in whichever form the framework gives them. */
export interface CallbackInput {
  /**
   * The request headers. Leave out only for a dealer card callback delivered without them: its
   * body's `hash` and `timestamp` are then verified instead (spec 6.5).
   * @example req.headers
   */
  readonly headers?: CallbackHeaders | undefined;
  /**
   * The body: the raw text or bytes (best), or the object a JSON body parser produced. The hash
   * covers fields, not bytes, so a parsed body verifies the same.
   * @example req.body
   */
  readonly body: CallbackBody;
}

/** How to verify a callback. */
export interface VerifyCallbackOptions {
  /**
   * The API key of the account the callback is for: the provider's, or the dealer's for dealer
   * card callbacks. X-Api-Key must equal it.
   * @example process.env.PAYORCH_PROVIDER_API_KEY
   */
  readonly apiKey: string;
  /**
   * The secret key of the same account.
   * @example process.env.PAYORCH_PROVIDER_SECRET_KEY
   */
  readonly secretKey: string;
  /**
   * How far, in seconds, the signed timestamp may be from now, in the past or the future. The
   * spec gives requests 5 minutes (spec 5.1) and callbacks no figure; the same is assumed.
   * @default 300
   * @example 600
   */
  readonly toleranceSeconds?: number | undefined;
  /**
   * Which callback this receiver takes. Left out, it is told from the tracking code prefix and,
   * for card payments, the body's fields. Set it on a URL that receives one kind only.
   * @default detected
   * @example 'withdrawal'
   */
  readonly kind?: CallbackKind | undefined;
  /**
   * The clock, in milliseconds since the epoch, for tests.
   * @default Date.now
   * @example () => Date.parse('2025-11-22T11:32:25Z')
   */
  readonly now?: (() => number) | undefined;
}

function checkOptions(options: VerifyCallbackOptions): number {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('verifyCallback: apiKey must be a non-empty string');
  if (typeof options.secretKey !== 'string' || options.secretKey === '') throw new TypeError('verifyCallback: secretKey must be a non-empty string');
  const tolerance = options.toleranceSeconds ?? 300;
  if (typeof tolerance !== 'number' || !(tolerance >= 0)) throw new RangeError('verifyCallback: toleranceSeconds must be a number of at least 0');
  if (options.kind !== undefined && !isCallbackKind(options.kind)) throw new TypeError(`verifyCallback: kind must be one of ${CALLBACK_KINDS.join(', ')}`);
  return tolerance;
}

/**
 * Verifies a callback and returns its kind and parsed body. Checks, in this order: the body is
 * a JSON object with the signed fields; X-Api-Key, X-Timestamp and X-Hash are each present once;
 * X-Api-Key is ours; the body's `timestamp` and `hash` equal X-Timestamp and X-Hash; the hash
 * equals SHA-256(api_key + secret_key + tracking_code + status + timestamp), compared in
 * constant time (spec 5.3); the timestamp is within the tolerance; the kind is known; the body
 * fits the schema of its kind. Act on the payload only after it returns.
 *
 * The hash covers tracking_code, status and timestamp only: compare `amount` and the other
 * fields with your own records before you move money.
 *
 * @throws {CallbackVerificationError} with the `reason` and the HTTP `status` to answer
 * @example
 * ```ts
 * const callback = verifyCallback({ headers: req.headers, body: rawBody }, { apiKey, secretKey });
 * switch (callback.kind) {
 *   case 'deposit': creditDeposit(callback.payload); break;
 *   case 'withdrawal': settleWithdrawal(callback.payload); break;
 *   case 'creditCard':
 *   case 'dealerCreditCard': settleCard(callback.payload); break;
 * }
 * ```
 */
export function verifyCallback(input: CallbackInput, options: VerifyCallbackOptions): VerifiedCallback {
  const tolerance = checkOptions(options);
  const inputObject: unknown = input;
  if (typeof inputObject !== 'object' || inputObject === null) throw new CallbackVerificationError('malformed_body', 'there is no body');
  const body = readCallbackBody(input.body);
  const fields = SignedCallbackFields.safeParse(body);
  if (!fields.success) throw new CallbackVerificationError('malformed_body', 'a signed field is missing or has the wrong type', toIssues(fields.error));
  const { tracking_code: trackingCode, status, hash } = fields.data;
  // The service hashes the decimal text of its integer timestamp, whatever form the body used.
  const timestamp = String(fields.data.timestamp);

  const headers = readSignatureHeaders(input.headers);
  if (headers !== undefined) {
    if (!constantTimeEqual(headers.apiKey, options.apiKey)) {
      throw new CallbackVerificationError('api_key_mismatch', 'X-Api-Key is not the API key this receiver was given');
    }
    if (headers.timestamp !== timestamp) throw new CallbackVerificationError('invalid_signature', 'the body timestamp disagrees with X-Timestamp');
    if (!constantTimeEqual(hash, headers.hash)) throw new CallbackVerificationError('invalid_signature', 'the body hash disagrees with X-Hash');
  }
  const expected = callbackHash(options, trackingCode, status, timestamp);
  if (!constantTimeEqual(hash, expected)) throw new CallbackVerificationError('invalid_signature', 'the hash does not match tracking_code, status and timestamp');

  const age = Math.floor((options.now ?? Date.now)() / 1000) - fields.data.timestamp;
  if (Math.abs(age) > tolerance) {
    const when = age > 0 ? `${age} s old` : `${-age} s in the future`;
    throw new CallbackVerificationError('timestamp_out_of_tolerance', `the timestamp is ${when}; at most ${tolerance} s either way is accepted`);
  }

  const kind = options.kind ?? detectCallbackKind(body);
  if (headers === undefined && kind !== 'dealerCreditCard') {
    throw new CallbackVerificationError('missing_header', `X-Api-Key, X-Timestamp and X-Hash are missing; only a dealer card callback may come without them`);
  }
  return parsePayload(kind, body);
}

function parse<S extends z.ZodType>(schema: S, kind: CallbackKind, body: Readonly<Record<string, unknown>>): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new CallbackVerificationError('malformed_body', `the body is not a valid ${kind} callback`, toIssues(result.error));
  }
  return result.data;
}

function parsePayload(kind: CallbackKind, body: Readonly<Record<string, unknown>>): VerifiedCallback {
  switch (kind) {
    case 'deposit':
      return { kind, payload: parse(DepositCallback, kind, body) };
    case 'withdrawal':
      return { kind, payload: parse(WithdrawalCallback, kind, body) };
    case 'creditCard':
      return { kind, payload: parse(CreditCardCallback, kind, body) };
    case 'dealerCreditCard':
      return { kind, payload: parse(DealerCreditCardCallback, kind, body) };
    default:
      return assertNever(kind);
  }
}
