import { constantTimeEqual } from '../internal/hash/constant-time.js';
import { hmacSha256Hex } from '../internal/hash/sha256.js';
import { CallbackJobError } from '../errors/error.js';
import { checkOptions, declareOptions } from '../core/option-checks.js';

/*
 * A job's seal: the receiver's own MAC over the whole job, made with its secret key when the job
 * is made, and checked by `apply` before anything in the job is read as true. The service's hash
 * covers tracking_code, status and timestamp only; the seal covers the rest (amount, user_id,
 * receivedAt, merchantId, kind, event), so that a job changed or written in the queue applies nothing
 * (docs/decisions.md, "Deferred: a sealed job").
 */

/** The seal `apply` checks before it trusts anything in a job. */
export interface JobSeal {
  /**
   * Which secret key sealed the job: the first 16 hex digits of HMAC-SHA256(key, `payorch job
   * seal key`). It tells a receiver's keys apart (its `secretKey`, the `previousSecretKey` of a
   * rotation) and reveals nothing of them.
   */
  readonly keyId: string;
  /** HMAC-SHA256, lowercase hex, with that key over the job's canonical form (every field but `seal`). */
  readonly mac: string;
}

const KEY_ID_INPUT = 'payorch job seal key';
const MAC_PREFIX = 'payorch job seal\n';
const KEY_ID = /^[0-9a-f]{16}$/;

/** The key id of a secret key (see {@link JobSeal.keyId}). */
const keyIdOf = (secretKey: string): string => hmacSha256Hex(secretKey, KEY_ID_INPUT).slice(0, 16);

/**
 * The canonical form of JSON data: object members sorted by name (UTF-16 code units, as
 * `Array.prototype.sort` orders them) and written without spaces, members whose value is
 * `undefined` left out, arrays in order; strings, numbers, booleans and null as `JSON.stringify`
 * writes them. It is the same text after any JSON round trip, whatever order the engine keeps
 * members in (PostgreSQL's jsonb reorders them), and after a structured clone.
 * @throws {TypeError} for a value JSON cannot hold (a bigint, a function, a symbol)
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item: unknown) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (typeof value === 'object') {
    const members = value as Readonly<Record<string, unknown>>;
    const names = Object.keys(members)
      .filter((name) => members[name] !== undefined)
      .sort();
    return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(members[name])}`).join(',')}}`;
  }
  throw new CallbackJobError('malformed_body', 'job', `the job is not JSON data (it holds a ${typeof value})`);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(reason: 'malformed_body' | 'invalid_signature' | 'seal_key_expired' | 'seal_key_unknown', message: string, field: 'job' | 'seal' = 'seal'): never {
  throw new CallbackJobError(reason, field, message);
}

/** The job without its seal. */
function withoutSeal(job: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fields = { ...job };
  delete fields['seal'];
  return fields;
}

/** The text a seal signs: the job without its seal, in canonical form. */
function sealedText(job: Readonly<Record<string, unknown>>): string {
  return MAC_PREFIX + canonicalJson(withoutSeal(job));
}

/** The job's seal, checked for shape only. */
function sealOf(job: Readonly<Record<string, unknown>>): JobSeal {
  const seal = job['seal'];
  if (!isRecord(seal) || typeof seal['keyId'] !== 'string' || !KEY_ID.test(seal['keyId']) || typeof seal['mac'] !== 'string') {
    refuse('malformed_body', 'seal is not { keyId, mac }: the job was not made by a receiver of this payorch version (or its seal was removed)');
  }
  return { keyId: seal['keyId'], mac: seal['mac'] };
}

const CHANGED = 'the job’s seal does not match: it was changed in the queue, or written there without the secret key';

/** The keys that seal and check a receiver's jobs. No entry exports it. */
export interface JobSealer {
  /** The job with its seal, made with the receiver's `secretKey`. */
  seal<T extends Readonly<Record<string, unknown>>>(job: T): T & { readonly seal: JobSeal };
  /**
   * Checks a job's seal at `nowMs` (the worker's clock): one made with `secretKey` always, one
   * made with `previousSecretKey` until its `until`.
   * @throws {CallbackJobError} `malformed_body` (no seal), `invalid_signature` (changed or forged), `seal_key_expired` (a genuine seal of `previousSecretKey` past its `until`), `seal_key_unknown` (a seal of a key not held: retryable, another worker may hold it)
   */
  check(job: Readonly<Record<string, unknown>>, nowMs: number): void;
}

/** The sealer of a receiver's keys: its secret key, and the previous one until its end. @internal */
export function jobSealer(secretKey: string, previous: { readonly secretKey: string; readonly untilMs: number } | undefined): JobSealer {
  // Worked out on the first job, not for each verifyCallback that builds a verifier.
  let ids: { readonly current: string; readonly previous: string | undefined } | undefined;
  const keyIds = () => (ids ??= { current: keyIdOf(secretKey), previous: previous === undefined ? undefined : keyIdOf(previous.secretKey) });

  return {
    seal(job) {
      const seal: JobSeal = { keyId: keyIds().current, mac: hmacSha256Hex(secretKey, sealedText(job)) };
      return { ...job, seal };
    },
    check(job, nowMs) {
      const seal = sealOf(job);
      const { current, previous: previousId } = keyIds();
      if (seal.keyId === current) {
        if (!constantTimeEqual(seal.mac, hmacSha256Hex(secretKey, sealedText(job)))) refuse('invalid_signature', CHANGED);
        return;
      }
      if (previous !== undefined && seal.keyId === previousId) {
        // Checked before the window: a changed job is refused as changed, whenever it comes.
        if (!constantTimeEqual(seal.mac, hmacSha256Hex(previous.secretKey, sealedText(job)))) refuse('invalid_signature', CHANGED);
        if (nowMs >= previous.untilMs) {
          refuse(
            'seal_key_expired',
            `the job was sealed with previousSecretKey, whose window closed at ${new Date(previous.untilMs).toISOString()} (until): it was queued before the rotation and waited past it. Nothing was applied; re-seal it with that key (resealCallbackJob) and apply it again`,
          );
        }
        return;
      }
      // Not a dead letter at once: in a rolling deploy of a rotation, a worker still on the old
      // keys takes jobs sealed with the new one, and the engine must give them to another.
      refuse(
        'seal_key_unknown',
        'the job was sealed with a secret key this receiver does not hold (neither secretKey nor previousSecretKey): a newer one this worker does not have yet, or one it dropped. Nothing was applied; it is retried, so that a worker holding that key applies it; a dead letter of it is re-sealed with that key (resealCallbackJob, which refuses a job the key did not seal)',
      );
    },
  };
}

/** The secret keys {@link resealCallbackJob} is given on purpose. */
export interface ResealKeys {
  /** The secret key the job was sealed with: the key in force before the rotation (`previousSecretKey.secretKey`). */
  readonly oldSecretKey: string;
  /** The receiver's `secretKey` now: the job is sealed again with it. */
  readonly secretKey: string;
}

/** resealCallbackJob's keys, both required. @internal */
export const RESEAL_KEYS = declareOptions<ResealKeys>()([
  { name: 'oldSecretKey', rule: { type: 'key' }, required: true },
  { name: 'secretKey', rule: { type: 'key' }, required: true },
]);

/**
 * Seals a job again with the receiver's current secret key, after checking its seal with the old
 * one: for a job queued before a key rotation that was still waiting (in the queue or the dead
 * letters) when the previous key's window closed, which `apply` refuses as `seal_key_expired`.
 * Give the keys on purpose, from your secret store; the job keeps its receipt time, so the age
 * limit and the previous key's window are still measured at its first receipt. A job already
 * sealed with `secretKey` is returned as it is, so a whole dead-letter table can be passed through.
 * Then give the job to `receiver.apply` (or your queue) as any other.
 *
 * @typeParam TJob a `CallbackJob`
 * @returns a new job; the one given is not changed
 * @throws {CallbackJobError} with nothing sealed: `invalid_signature` (field `seal`) for a job whose seal
 *   does not verify with `oldSecretKey` (changed or forged in the queue, or sealed with another key),
 *   `malformed_body` for one that is not a sealed job
 * @throws {RequestValidationError} for a key that is not a non-empty string
 * @example
 * ```ts
 * import type { PgBoss } from 'pg-boss';
 * import { resealCallbackJob } from 'payorch/webhooks';
 * import type { CallbackJob } from 'payorch/webhooks';
 * declare const boss: PgBoss;
 * declare const deadLetter: { data: CallbackJob }; // a job refused as seal_key_expired
 *
 * const job = resealCallbackJob(deadLetter.data, { oldSecretKey: process.env.OLD_SECRET_KEY!, secretKey: process.env.PAYORCH_PROVIDER_SECRET_KEY! });
 * await boss.send('payorch-callbacks', job);
 * ```
 */
export function resealCallbackJob<TJob extends { readonly seal: JobSeal }>(job: TJob, keys: ResealKeys): TJob {
  checkOptions('resealCallbackJob', keys, RESEAL_KEYS);
  const { oldSecretKey, secretKey } = keys;
  const found: unknown = job;
  if (!isRecord(found)) refuse('malformed_body', 'the job is not an object (a CallbackJob, as enqueue got it)', 'job');
  const seal = sealOf(found);
  const text = sealedText(found);
  const sealedWith = (key: string) => seal.keyId === keyIdOf(key) && constantTimeEqual(seal.mac, hmacSha256Hex(key, text));
  if (sealedWith(secretKey)) return job;
  if (!sealedWith(oldSecretKey)) {
    refuse('invalid_signature', 'the job’s seal does not verify with oldSecretKey: it was changed or written in the queue, or sealed with another key. Nothing was re-sealed');
  }
  return { ...withoutSeal(found), seal: { keyId: keyIdOf(secretKey), mac: hmacSha256Hex(secretKey, text) } } as unknown as TJob;
}
