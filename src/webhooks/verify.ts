import { checkNames, checkOptions, checkValue, declareOptions, takingSandboxAccounts } from '../core/option-checks.js';
import type { OptionDeclaration } from '../core/option-checks.js';
import { declaredCharset } from '../internal/charset.js';
import { constantTimeEqual } from '../internal/hash/constant-time.js';
import { callbackHash } from '../internal/signer.js';
import type { Credentials } from '../internal/signer.js';
import { readLimited } from '../internal/read-limited.js';
import { recordOfTrackingCode } from '../core/tracking-code.js';
import type { TrackingCodeDirection } from '../core/tracking-code.js';
import { CallbackVerificationError, RequestValidationError } from '../errors/error.js';
import { DEFAULT_CALLBACK_MAX_AGE_SECONDS, DEFAULT_TOLERANCE_SECONDS } from '../core/callback-age.js';
import { MAX_CALLBACK_BODY_BYTES, readCallbackBody } from './body.js';
import type { BodyDecoding, CallbackBody } from './body.js';
import type { Api } from '../core/api.js';
import { CALLBACK_KINDS } from './kinds.js';
import type { CallbackKind } from './kinds.js';
import { readContentType, readSignatureHeaders } from './headers.js';
import type { CallbackHeaders } from './headers.js';
import { CALLBACK_FIELDS, DIRECTION_OF_KIND, fieldIssue, kindOfCallback, readField, readPayload } from './payload.js';
import { jobSealer } from './seal.js';
import type { JobSealer } from './seal.js';
import type { VerifiedCallback } from './schemas.js';
import type { ValidationIssue } from '../errors/error.js';

/** A received callback: its headers and its body, in whichever form the framework gives them. */
export interface CallbackInput {
  /**
   * The request headers. Left out, only a dealer card callback verifies, and only with `kind:
   * 'dealerCreditCard'` or `dealerCardWithoutHeaders`: its body's `hash` and `timestamp` are then
   * verified (spec 6.5).
   * @example req.headers
   */
  readonly headers?: CallbackHeaders | undefined;
  /**
   * The body: the raw text or bytes (best), or the object a JSON body parser produced. The hash
   * covers fields, not bytes, so a parsed body verifies the same. Bytes are decoded in the charset
   * the headers' Content-Type declares, else UTF-8, else windows-1252 (which reads any bytes): a
   * genuine callback is never refused over its charset.
   * @example req.body
   */
  readonly body: CallbackBody;
}

export { DEFAULT_CALLBACK_MAX_AGE_SECONDS, DEFAULT_TOLERANCE_SECONDS } from '../core/callback-age.js';

/** How to verify a callback. */
export interface VerifyCallbackOptions {
  /**
   * The API key of the account the callback is for: the provider's, or the dealer's for dealer
   * card callbacks. X-Api-Key must equal it.
   * @example process.env.PAYORCH_PROVIDER_API_KEY!
   */
  readonly apiKey: string;
  /**
   * The secret key of the same account.
   * @example process.env.PAYORCH_PROVIDER_SECRET_KEY!
   */
  readonly secretKey: string;
  /**
   * After a key rotation, the secret key in force before it (and its API key, when that changed
   * too), accepted beside `secretKey` until an absolute time: the callbacks the service signed
   * before the rotation, and their redeliveries, still verify when they arrive before then, and
   * a receiver's jobs sealed with it apply until then. Hashes are checked with both keys in
   * constant time; neither key is ever logged. A receiver given one needs `merchantId`, so that
   * what its inbox recorded never depends on a key. Keep it after `until` while jobs received
   * before `until` may still be applied: it then verifies only those (docs/rotating-keys.md).
   * @default none: only `secretKey`
   * @example { secretKey: oldSecretKey, until: '2026-12-01T00:00:00Z' }
   */
  readonly previousSecretKey?: PreviousSecretKey | undefined;
  /**
   * How old, in seconds, the signed timestamp may be. Long enough for the service's
   * redeliveries after an outage of the receiver, which may keep their first signature; a
   * replay within it is harmless once callbacks are applied once only (`createCallbackReceiver`).
   * Tighten it when your receiver dedupes for a shorter time; loosen it after a longer outage.
   * @default 259200 (3 days, {@link DEFAULT_CALLBACK_MAX_AGE_SECONDS})
   * @example 3600
   */
  readonly maxAgeSeconds?: number | undefined;
  /**
   * How far, in seconds, the signed timestamp may be in the future (clocks drift). The spec gives
   * requests 5 minutes (spec 5.1) and callbacks no figure; the same is assumed.
   * @default 300
   * @example 600
   */
  readonly toleranceSeconds?: number | undefined;
  /**
   * Which callback this receiver takes. Left out, it is told from the tracking code prefix and,
   * for card payments, the body's fields. Given, it must agree with the tracking code prefix.
   * Set it on a URL that receives one kind only. `'dealerCreditCard'` also takes a dealer card
   * callback without headers, verified from its body's `hash` and `timestamp` (spec 6.5).
   * @default detected
   * @example 'withdrawal'
   */
  readonly kind?: CallbackKind | undefined;
  /**
   * Which API's keys these are: the Provider API's or the Dealer API's. It tells a provider card callback from
   * a dealer one (both carry `CC` tracking codes, spec 2.1) from what is signed, the keys. Left
   * out, the body's unsigned fields are a hint (a `status_message`, `customer_phone` or
   * `completed_at` without provider fields reads as a dealer card callback), which never refuses.
   * @default told from the body
   * @example 'dealer'
   */
  readonly api?: Api | undefined;
  /**
   * Accept a dealer card callback that arrives without X-Api-Key, X-Timestamp and X-Hash, verified
   * from the body's `hash` and `timestamp` (spec 6.5 says the receiver verifies "the payload
   * timestamp"), when `kind` is not given (`kind: 'dealerCreditCard'` does the same by itself).
   * Only a callback without any of the three headers takes this path, and it is then always read
   * as a dealer card callback, whatever its fields say. Set it only on the URL that receives the
   * dealer's card callbacks.
   * @default false
   * @example true
   */
  readonly dealerCardWithoutHeaders?: boolean | undefined;
  /**
   * The clock, in milliseconds since the epoch, for tests.
   * @default Date.now
   * @example () => Date.parse('2025-11-22T11:32:25Z')
   */
  readonly now?: (() => number) | undefined;
}

const WHERE = 'verifyCallback';

/**
 * verifyCallback's options, declared once: the receiver checks the same at start-up. verifyCallback
 * refuses any other name (a misspelt maxAgeSeconds would leave the age limit at its default), but
 * a sandbox account's fields: the sandbox guide spreads one in. @internal
 */
export const VERIFY_OPTIONS = /* @__PURE__ */ takingSandboxAccounts(
  /* @__PURE__ */ declareOptions<VerifyCallbackOptions>()(
    [
      { name: 'apiKey', rule: { type: 'key' }, required: true, env: 'PAYORCH_PROVIDER_API_KEY or PAYORCH_DEALER_API_KEY' },
      { name: 'secretKey', rule: { type: 'key' }, required: true, env: 'PAYORCH_PROVIDER_SECRET_KEY or PAYORCH_DEALER_SECRET_KEY' },
      { name: 'maxAgeSeconds', rule: { type: 'number', min: 0, max: Infinity, unit: 'seconds' }, default: DEFAULT_CALLBACK_MAX_AGE_SECONDS },
      { name: 'toleranceSeconds', rule: { type: 'number', min: 0, max: Infinity, unit: 'seconds' }, default: DEFAULT_TOLERANCE_SECONDS },
      { name: 'kind', rule: { type: 'oneOf', values: CALLBACK_KINDS } },
      { name: 'api', rule: { type: 'oneOf', values: ['provider', 'dealer'] } },
      { name: 'dealerCardWithoutHeaders', rule: { type: 'boolean' }, default: false },
      { name: 'now', rule: { type: 'function' } },
    ],
    { previousSecretKey: 'checked with its parts and the secretKey it must differ from, by previousKeysOf (below)' },
  ),
);

/*
 * The secret key a receiver still accepts after a rotation, until an absolute time. Absolute, not
 * "for an hour from start-up": every instance, and every restart of one, must close the window at
 * the same moment, or an instance started late keeps a leaked key alive.
 */

/**
 * The secret key in force before a rotation, accepted beside `secretKey` until `until`.
 *
 * @example { secretKey: oldSecretKey, until: '2026-12-01T00:00:00Z' }
 */
export interface PreviousSecretKey {
  /** The secret key the service signed with before the rotation. Never logged or shown in an error. */
  readonly secretKey: string;
  /**
   * The moment it stops being accepted: a `Date`, or an ISO 8601 text with a zone (`Z` or
   * `+03:00`), so that every instance reads the same moment. Past it, the key verifies only the
   * callbacks of jobs received before it, and seals nothing new.
   */
  readonly until: Date | string;
  /**
   * The API key that went with it, when the rotation changed the API key too: a callback whose
   * X-Api-Key is this one verifies with the previous secret key only, until `until`.
   * @default apiKey: the rotation changed the secret key only
   */
  readonly apiKey?: string | undefined;
}

// The parts' names (their values are checked below).
const PREVIOUS_PARTS = declareOptions<PreviousSecretKey>()([
  { name: 'secretKey', rule: { type: 'key' } },
  { name: 'apiKey', rule: { type: 'key' } },
  { name: 'until', rule: { type: 'time', min: -Infinity, max: Infinity } },
]);

/** `previousSecretKey`, checked: the keys and the moment they end, in milliseconds since 1970. */
interface PreviousKeys extends Credentials {
  readonly untilMs: number;
}

// A zone is required: a local time would be another moment on an instance in another zone.
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

function refuseOption(where: string, field: string, message: string): never {
  throw new RequestValidationError(where, [{ field, rule: 'invalid_option', message }]);
}

/**
 * Checks `previousSecretKey` and returns its keys and the moment it ends, or undefined when none
 * is given. No key is ever shown.
 * @throws {RequestValidationError} naming `previousSecretKey` or the part of it that is wrong
 */
function previousKeysOf(where: string, options: VerifyCallbackOptions): PreviousKeys | undefined {
  const previous: unknown = options.previousSecretKey;
  if (previous === undefined) return undefined;
  if (typeof previous !== 'object' || previous === null) refuseOption(where, 'previousSecretKey', `must be { secretKey, until }; got ${previous === null ? 'null' : typeof previous}`);
  // A misspelt part would leave the old API key unknown: its callbacks refused all the window.
  checkNames('previousSecretKey', previous, PREVIOUS_PARTS);
  const { secretKey, until, apiKey = options.apiKey } = previous as { readonly secretKey?: unknown; readonly until?: unknown; readonly apiKey?: unknown };
  if (typeof secretKey !== 'string' || secretKey === '') {
    refuseOption(where, 'previousSecretKey.secretKey', `must be a non-empty string; got ${secretKey === '' ? 'an empty string' : typeof secretKey}`);
  }
  if (secretKey === options.secretKey) refuseOption(where, 'previousSecretKey.secretKey', 'must differ from secretKey: it is the key in force before the rotation');
  if (typeof apiKey !== 'string' || apiKey === '') {
    refuseOption(where, 'previousSecretKey.apiKey', `must be a non-empty string, or left out when the API key did not change; got ${apiKey === '' ? 'an empty string' : typeof apiKey}`);
  }
  let ms = Number.NaN;
  if (until instanceof Date) ms = until.getTime();
  else if (typeof until === 'string' && ISO_WITH_ZONE.test(until)) ms = Date.parse(until);
  if (!Number.isFinite(ms)) {
    const got = until instanceof Date ? 'an invalid Date' : typeof until === 'string' ? JSON.stringify(until.slice(0, 40)) : typeof until;
    refuseOption(where, 'previousSecretKey.until', `must be a Date or an ISO 8601 time with a zone, for example '2026-12-01T00:00:00Z' (the same moment on every instance); got ${got}`);
  }
  return { apiKey, secretKey, untilMs: ms };
}

// A clock that reads NaN would make every timestamp look fresh or every one stale.
const CLOCK_READING: OptionDeclaration = { name: 'now()', rule: { type: 'number', min: -Infinity, max: Infinity }, required: true };

function readClock(now: () => number): number {
  const reading: unknown = now();
  // Every verification reads the clock: the declaration's check (and its message) only for a bad reading.
  if (typeof reading === 'number' && Number.isFinite(reading)) return reading;
  checkValue(WHERE, CLOCK_READING, reading);
  return reading as number;
}

// A status of spec 6 is one lower-case word (completed, cancelled); a little room is left for
// statuses the service adds. An empty status is what turns a request X-Hash into a callback hash.
const STATUS_WORD = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

// Spec 2.1's shape with a prefix it does not list (the service adds payment methods): upper-case
// words, at most two joined by a hyphen as in EIBAN-WIT, an alphanumeric segment, Unix seconds.
// The seconds must end the code, so a status moved into it (the credential-key split) fails.
const ANY_TRACKING_CODE = /^([A-Z][A-Z0-9]{0,15}(?:-[A-Z][A-Z0-9]{0,15})?)-[A-Za-z0-9]{1,64}-\d{1,12}$/;

/** What the signed fields' shape tells before the hash is trusted: the direction, and the prefix when spec 2.1 lists it. */
interface SignedShape {
  readonly direction: Exclude<TrackingCodeDirection, 'transfer'> | 'unknown';
  readonly prefix: string | undefined;
}

/**
 * The signed fields must have their shape before the hash is trusted: with an empty tracking
 * code and status the callback hash is exactly the X-Hash of a basic-signed request, which passes
 * through proxies and logs. A prefix spec 2.1 does not list is read as `unknown`.
 */
function checkSignedShape(trackingCode: string, status: string): SignedShape {
  const parsed = recordOfTrackingCode(trackingCode);
  const unlistedPrefix = parsed === undefined ? ANY_TRACKING_CODE.exec(trackingCode)?.[1] : undefined;
  // TRF ids name transfers, which have no callback (spec 6.1), whatever follows them.
  if (parsed === undefined && (unlistedPrefix === undefined || unlistedPrefix === 'TRF')) {
    throw new CallbackVerificationError('invalid_tracking_code', 'tracking_code is not a tracking code of spec 2.1 (PREFIX-segment-seconds)');
  }
  if (!STATUS_WORD.test(status)) throw new CallbackVerificationError('invalid_status', 'status is not a status word');
  return parsed ?? { direction: 'unknown', prefix: undefined };
}

// X-Timestamp as the service sends it: the decimal text of Unix seconds.
const HEADER_SECONDS = /^\d{1,12}$/;
/**
 * The two signed fields read before the hash, by hand: the check that runs on every delivery
 * needs no schema. Timestamp and hash are read one by one below, since either copy of each may
 * be the unsigned one.
 */
function readTrackedFields(body: Readonly<Record<string, unknown>>): { readonly trackingCode: string; readonly status: string } {
  const { tracking_code: trackingCode, status } = body;
  if (typeof trackingCode === 'string' && typeof status === 'string') return { trackingCode, status };
  const issues: ValidationIssue[] = [];
  if (typeof trackingCode !== 'string') issues.push(fieldIssue('tracking_code', 'text', trackingCode));
  if (typeof status !== 'string') issues.push(fieldIssue('status', 'status', status));
  throw new CallbackVerificationError('malformed_body', 'a signed field is missing or has the wrong type', issues);
}

/** The body's `timestamp` as decimal text, or undefined when it is absent or not a non-negative integer. */
function bodySeconds(body: Readonly<Record<string, unknown>>): string | undefined {
  // Read as the payload reads it (a safe integer, or its text); the service hashes the decimal
  // text of its integer timestamp, whatever form the body used.
  const seconds = readField('integer', body['timestamp']);
  return typeof seconds === 'number' && seconds >= 0 ? String(seconds) : undefined;
}

/**
 * Verifies a callback and returns its kind, its parsed body and its age. Checks, in this order:
 * the body is a JSON object with the signed fields; `tracking_code` is a tracking code (spec
 * 2.1) that agrees with `kind` when one is given, and `status` is a status word; X-Api-Key,
 * X-Timestamp and X-Hash are each present once (or, only for a dealer card receiver, all
 * absent); X-Api-Key is ours; the body's `timestamp` and `hash` equal X-Timestamp and X-Hash; the
 * hash equals SHA-256(api_key + secret_key + tracking_code + status + timestamp), compared in
 * constant time (spec 5.3); the timestamp is at most `maxAgeSeconds` old and at most
 * `toleranceSeconds` in the future; the kind is known; the body fits the schema of its kind.
 * Act on the payload only after it returns.
 *
 * The hash covers tracking_code, status and timestamp only: compare `amount` and the other
 * fields with your own records before you move money. A genuine callback may arrive again
 * (a redelivery, a replay): apply each one once (`createCallbackReceiver` does).
 *
 * @throws {CallbackVerificationError} with the `reason` and the HTTP `status` to answer
 * @throws {RequestValidationError} when an option is impossible, or is not one of these (a
 * programming error, not a refusal)
 * @example
 * ```ts
 * import type { IncomingMessage } from 'node:http';
 * import { verifyCallback } from 'payorch';
 * import type { CreditCardCallback, DealerCreditCardCallback, DepositCallback, WithdrawalCallback } from 'payorch';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * declare const req: IncomingMessage;
 * declare const rawBody: Buffer;
 * // Yours: each compares the callback with your order row of its tracking code, and moves money for
 * // that row's user only (the hash covers tracking_code, status and timestamp, not user or amount).
 * declare function settleDeposit(deposit: DepositCallback): void;
 * declare function settleWithdrawal(withdrawal: WithdrawalCallback): void;
 * declare function settleCard(card: CreditCardCallback | DealerCreditCardCallback): void;
 * const callback = verifyCallback({ headers: req.headers, body: rawBody }, { apiKey, secretKey });
 * switch (callback.kind) {
 *   case 'deposit': settleDeposit(callback.payload); break;
 *   case 'withdrawal': settleWithdrawal(callback.payload); break;
 *   case 'creditCard':
 *   case 'dealerCreditCard': settleCard(callback.payload); break;
 * }
 * ```
 */
export function verifyCallback(input: CallbackInput, options: VerifyCallbackOptions): VerifiedCallback {
  return verifierFor(options).verify(input).callback;
}

// A route calls verifyCallback with a new options object of the same values for every callback.
// The verifier of the last values is kept, and used again while every declared option holds the
// same value: checking and resolving them gives the same verifier (a changed value makes a new
// one). Not with previousSecretKey, an object whose parts could change under the same reference.
// Its names are checked on every call, though not its values: the object may be another, or have
// gained a name that is no option (maxAge) since.
let last: { readonly values: readonly unknown[]; readonly verifier: CallbackChecker } | undefined;

function verifierFor(options: VerifyCallbackOptions): CallbackChecker {
  const given: unknown = options;
  if (typeof given !== 'object' || given === null || options.previousSecretKey !== undefined) return createChecker(options);
  const record = given as Readonly<Record<string, unknown>>;
  const cached = last;
  if (cached !== undefined && sameValues(record, cached.values)) {
    checkNames(WHERE, record, VERIFY_OPTIONS);
    return cached.verifier;
  }
  const verifier = createChecker(options);
  last = { values: VERIFY_OPTIONS.map((declaration) => record[declaration.name]), verifier };
  return verifier;
}

/** The pairs whose API key is `apiKey`, each compared in constant time; `pairs` itself when all are. */
function withApiKey(pairs: readonly Credentials[], apiKey: string): readonly Credentials[] {
  let all = true;
  for (const pair of pairs) all = constantTimeEqual(apiKey, pair.apiKey) && all;
  return all ? pairs : pairs.filter((pair) => constantTimeEqual(apiKey, pair.apiKey));
}

// A loop, not `every` with a closure: it runs on every call.
function sameValues(record: Readonly<Record<string, unknown>>, values: readonly unknown[]): boolean {
  for (let index = 0; index < VERIFY_OPTIONS.length; index++) if (record[VERIFY_OPTIONS[index]?.name ?? ''] !== values[index]) return false;
  return true;
}

/**
 * Verifies a callback given as a Fetch API `Request` (Hono, Next.js route handlers, Bun, Deno,
 * workers): reads the raw body once, then does everything `verifyCallback` does.
 *
 * @throws {CallbackVerificationError} with the `reason` and the HTTP `status` to answer
 * @throws {TypeError} when the body was already read, or `request` is a Node `IncomingMessage`
 *   (use {@link verifyCallback} with `req.headers` and the raw body there)
 * @example
 * ```ts
 * import { CallbackVerificationError, verifyCallbackRequest } from 'payorch';
 * import type { VerifiedCallback } from 'payorch';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * declare function processOnce(callback: VerifiedCallback): Promise<void>;
 * export async function POST(request: Request): Promise<Response> {
 *   try {
 *     const callback = await verifyCallbackRequest(request, { apiKey, secretKey });
 *     await processOnce(callback);
 *     return Response.json({ success: true });
 *   } catch (error) {
 *     if (error instanceof CallbackVerificationError) return Response.json({ success: false }, { status: error.status });
 *     throw error;
 *   }
 * }
 * ```
 */
export async function verifyCallbackRequest(request: Request, options: VerifyCallbackOptions): Promise<VerifiedCallback> {
  const given: unknown = request;
  if (typeof (given as { headers?: { get?: unknown } } | null)?.headers?.get !== 'function') {
    // A Node IncomingMessage (node:http, Express, Fastify's req.raw) has plain-object headers and no Fetch API body.
    throw new RequestValidationError('verifyCallbackRequest', [
      {
        field: 'request',
        rule: 'invalid_argument',
        message: 'must be a Fetch API Request (Hono, Next.js route handlers, workers, Bun, Deno); this looks like a Node IncomingMessage (node:http, Express, Fastify). Use verifyCallback({ headers: req.headers, body: rawBody }, options) there',
      },
    ]);
  }
  if (request.bodyUsed) {
    throw new RequestValidationError('verifyCallbackRequest', [{ field: 'request', rule: 'invalid_argument', message: 'its body was already read; pass the request before anything reads it' }]);
  }
  const verifier = createChecker(options);
  const body = await readLimited(request.body, request.headers.get('content-length'), MAX_CALLBACK_BODY_BYTES);
  if (body === undefined) {
    throw new CallbackVerificationError('malformed_body', `the body is larger than the ${MAX_CALLBACK_BODY_BYTES} bytes a callback can be`);
  }
  return verifier.verify({ headers: request.headers, body }, { sized: true }).callback;
}

/** The charset of a body given as bytes: what its Content-Type declares. @internal */
export function charsetOf(input: CallbackInput): string | undefined {
  return declaredCharset(readContentType(input.headers));
}

/** What one verification may be told besides its input. No entry exports it. */
export interface VerifyAt {
  /** Hears when the body's bytes were not read in the charset they declared (the receiver logs it). */
  readonly onDecoded?: ((decoding: BodyDecoding) => void) | undefined;
  /** The body was sized by its reader (a receiver reads at most `maxBodyBytes`): not sized again. */
  readonly sized?: boolean | undefined;
  /** The time the age, and the previous key's window, are measured at, instead of the clock (a job's receipt time). */
  readonly nowMs?: number | undefined;
  /**
   * The headers were rebuilt from a sealed job, whose X-Api-Key was checked at receipt: the hash
   * is tried with every key pair, the previous API key's included.
   */
  readonly rebuilt?: boolean | undefined;
}

/** A verified callback, and where its signature came (what a job records). No entry exports it. */
export interface Verified {
  readonly callback: VerifiedCallback;
  readonly signedIn: 'headers' | 'body';
  /** The time the age was measured at: the clock's reading, or the `nowMs` given. */
  readonly receivedAt: number;
}

/** verifyCallback's options, checked and resolved once, with the per-message check. No entry exports it. */
export interface CallbackChecker {
  readonly apiKey: string;
  readonly toleranceSeconds: number;
  /** The clock's reading, checked to be a number: the receiver's one clock. */
  readonly now: () => number;
  verify(input: CallbackInput, at?: VerifyAt): Verified;
}

/** A receiver's checker, with what seals its jobs. No entry exports it. */
export interface Verifier extends CallbackChecker {
  /** The same keys, sealing the receiver's jobs and checking their seals. */
  readonly seals: JobSealer;
}

/**
 * Checks and resolves verifyCallback's options, for one call of `verifyCallback`. A receiver
 * checks its options itself and builds its one verifier with {@link verifierOf}.
 * @throws {RequestValidationError} when an option is impossible
 * @internal
 */
export function createVerifier(options: VerifyCallbackOptions): Verifier {
  checkOptions(WHERE, options, VERIFY_OPTIONS);
  return verifierOf(WHERE, options);
}

// What verifyCallback needs: no job sealer, so that a bundle of verifyCallback alone leaves the
// sealing code (a receiver's) out.
function createChecker(options: VerifyCallbackOptions): CallbackChecker {
  checkOptions(WHERE, options, VERIFY_OPTIONS);
  return checkerOf(WHERE, options, previousKeysOf(WHERE, options));
}

/**
 * A verifier of options already checked one by one (a receiver checks its own, verifyCallback's
 * among them): what remains is the previous key, checked with the key it must differ from, then
 * the defaults, applied here once. `where` names the caller in an error. @internal
 */
export function verifierOf(where: string, options: VerifyCallbackOptions): Verifier {
  const previous = previousKeysOf(where, options);
  return { ...checkerOf(where, options, previous), seals: jobSealer(options.secretKey, previous) };
}

// The check itself, of options and a previous key already checked.
function checkerOf(where: string, options: VerifyCallbackOptions, previous: PreviousKeys | undefined): CallbackChecker {
  const { apiKey, secretKey, kind: toldKind, dealerCardWithoutHeaders = false } = options;
  const maxAge = options.maxAgeSeconds ?? DEFAULT_CALLBACK_MAX_AGE_SECONDS;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // Read at each call, not kept: a verifier outlives the call that made it (verifierFor), and a
  // test's fake clock replaces Date.now after it was made.
  const now = options.now ?? ((): number => Date.now());
  const clock = (): number => readClock(now);
  const told = { kind: toldKind, api: options.api };
  // A body without headers is a dealer card's (spec 6.5) only where the receiver says so.
  const headerlessTaken = toldKind === 'dealerCreditCard' || (dealerCardWithoutHeaders && toldKind === undefined);
  const keys: Credentials = { apiKey, secretKey };
  // Made once, not per callback: the key pairs a hash may be made with.
  const currentPair: readonly Credentials[] = [keys];
  const bothPairs: readonly Credentials[] = previous === undefined ? currentPair : [keys, previous];

  /**
   * The signature's check: the headers (or, only for a dealer card receiver, none), the API
   * key, and the hash against either timestamp with either key. Returns the timestamp that
   * verified, the hash and where it was signed; throws `missing_header`, `api_key_mismatch`,
   * `invalid_signature` and the other refusals of the headers.
   */
  function signature(
    input: CallbackInput,
    body: Readonly<Record<string, unknown>>,
    trackingCode: string,
    status: string,
    nowMs: number,
    at: VerifyAt,
  ): { readonly timestamp: number; readonly hash: string; readonly inBody: boolean } {
    const fromBody = bodySeconds(body);
    const headers = readSignatureHeaders(input.headers);
    // The key pairs the hash may be made with: the current one, and the previous one while its
    // window is open at the message's time (a job's receipt time, which its seal vouches for).
    let pairs: readonly Credentials[] = previous !== undefined && nowMs < previous.untilMs ? bothPairs : currentPair;
    // The hash to check and the timestamps it may sign. Spec 5.3 signs X-Timestamp; 6.5 says "the
    // payload timestamp": either verifies, and the age is the one that matched. The body's `hash`
    // is an unsigned copy of X-Hash: with the headers, it is not read at all.
    let hash: string;
    let first: string | undefined;
    let second: string | undefined;
    if (headers === undefined) {
      const bodyHash = body['hash'];
      // Only on the receiver's word (its kind, or dealerCardWithoutHeaders), never guessed from
      // unsigned fields: stripped of its headers, a provider card callback must not become a dealer one.
      if (!headerlessTaken) {
        // Spec 6.5 describes a dealer card body signed in itself: one whose own hash verifies is
        // the service's, lost unless someone hears of it (refusals.ts).
        const genuine = typeof bodyHash === 'string' && matching(bodyHash, trackingCode, status, fromBody, pairs);
        const message =
          toldKind === undefined
            ? "X-Api-Key, X-Timestamp and X-Hash are missing (a dealer card receiver takes that with kind: 'dealerCreditCard' or dealerCardWithoutHeaders)"
            : `X-Api-Key, X-Timestamp and X-Hash are missing; only a dealer card callback may come without them, not a ${toldKind} callback`;
        throw new CallbackVerificationError('missing_header', `${message}${genuine ? "; the body's own hash verified with this receiver's keys" : ''}`, [], genuine);
      }
      if (typeof bodyHash !== 'string' || fromBody === undefined) {
        throw new CallbackVerificationError('malformed_body', 'without headers, the body must carry hash (text) and timestamp (Unix seconds)');
      }
      hash = bodyHash;
      first = fromBody;
    } else {
      // Each pair's API key compared, in constant time each; a job's headers were checked at receipt.
      if (at.rebuilt !== true) pairs = withApiKey(pairs, headers.apiKey);
      if (pairs.length === 0) {
        // The API key before a rotation, after previousSecretKey's until: most likely a genuine redelivery.
        const expired = previous !== undefined && withApiKey([previous], headers.apiKey).length > 0;
        throw new CallbackVerificationError(
          'api_key_mismatch',
          expired
            ? `X-Api-Key is the API key before the rotation, and previousSecretKey's until (${new Date(previous.untilMs).toISOString()}) has passed: a callback signed before the rotation and delivered again since is refused; widen until (docs/rotating-keys.md)`
            : 'X-Api-Key is not the API key this receiver was given',
        );
      }
      hash = headers.hash;
      if (HEADER_SECONDS.test(headers.timestamp)) first = String(Number(headers.timestamp));
      if (first === undefined) first = fromBody;
      else if (fromBody !== first) second = fromBody;
    }
    // Every candidate with every key is compared, in constant time each: which one matched is not a secret.
    const firstSigned = matching(hash, trackingCode, status, first, pairs);
    const secondSigned = matching(hash, trackingCode, status, second, pairs);
    const signed = firstSigned ? first : secondSigned ? second : undefined;
    if (signed === undefined) {
      throw new CallbackVerificationError(
        'invalid_signature',
        second !== undefined ? 'the hash matches tracking_code and status with neither X-Timestamp nor the body timestamp' : 'the hash does not match tracking_code, status and timestamp',
      );
    }
    return { timestamp: Number(signed), hash, inBody: headers === undefined };
  }

  function verify(input: CallbackInput, at: VerifyAt = {}): Verified {
    const nowMs = at.nowMs ?? clock();
    const inputObject: unknown = input;
    if (typeof inputObject !== 'object' || inputObject === null) throw new CallbackVerificationError('malformed_body', 'there is no body');
    // Content-Type matters only to bytes: a text or parsed body never reads it.
    const given = input.body;
    const charset = typeof given !== 'string' && (given instanceof ArrayBuffer || ArrayBuffer.isView(given)) ? charsetOf(input) : undefined;
    const body = readCallbackBody(given, charset, at.onDecoded, at.sized === true);
    const { trackingCode, status } = readTrackedFields(body);
    // Read once: the kind is told from the same tracking code below.
    const { direction, prefix } = checkSignedShape(trackingCode, status);
    if (toldKind !== undefined && direction !== 'unknown' && DIRECTION_OF_KIND[toldKind] !== direction) {
      // Refused whatever its hash, before its age is judged; whether the hash verified is told,
      // since a genuine callback of another kind at this URL is a setting to fix, not junk.
      let genuine = false;
      try {
        signature(input, body, trackingCode, status, nowMs, at);
        genuine = true;
      } catch {
        // Not signed with this receiver's keys.
      }
      throw new CallbackVerificationError('kind_mismatch', `a ${prefix ?? direction} tracking code is not a ${toldKind} callback`, [], genuine);
    }
    const { timestamp, hash, inBody } = signature(input, body, trackingCode, status, nowMs, at);

    // The hash verified: a refusal for the time is a genuine callback refused, most often by a
    // clock that is off.
    const ageSeconds = Math.floor(nowMs / 1000) - timestamp;
    if (ageSeconds > maxAge) {
      throw new CallbackVerificationError('timestamp_out_of_tolerance', `the timestamp is ${ageSeconds} s old; at most ${maxAge} s (maxAgeSeconds) is accepted`, [], true);
    }
    if (-ageSeconds > tolerance) {
      throw new CallbackVerificationError('timestamp_out_of_tolerance', `the timestamp is ${-ageSeconds} s in the future; at most ${tolerance} s (toleranceSeconds) is accepted`, [], true);
    }

    // The kind, then the body typed by its kind's table (the one place a payload is read), with
    // the values that verified rather than their unsigned copies.
    const kind = kindOfCallback(direction, inBody, body, told);
    const result = readPayload(CALLBACK_FIELDS[kind], body, { timestamp, hash });
    if (!result.success) {
      // Genuine, yet not typeable: 500 (unreadable_payload), so that it is redelivered once fixed.
      throw new CallbackVerificationError('unreadable_payload', `the signature verified, but the body is not a valid ${kind} callback`, result.issues);
    }
    const callback = { kind, source: 'callback', payload: result.data, ageSeconds } as VerifiedCallback;
    return { callback, signedIn: inBody ? 'body' : 'headers', receivedAt: nowMs };
  }

  // Whether `hash` signs the fields at `timestamp` with one of the key pairs; every pair is
  // compared, in constant time each, with no early exit.
  function matching(hash: string, trackingCode: string, status: string, timestamp: string | undefined, candidates: readonly Credentials[]): boolean {
    if (timestamp === undefined) return false;
    let matched = false;
    for (const pair of candidates) matched = constantTimeEqual(hash, callbackHash(pair, trackingCode, status, timestamp)) || matched;
    return matched;
  }

  return { apiKey, toleranceSeconds: tolerance, now: clock, verify };
}
