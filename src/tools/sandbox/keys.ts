import { checkOptions, declareOptions } from '../../core/option-checks.js';
import type { Api } from '../../core/api.js';
import type { Credentials } from '../../internal/signer.js';
import type { SeededRandom } from './random.js';

/*
 * Key rotation, as the sandbox plays it (the spec shows none: docs/spec-gaps.md). A rotation gives
 * an account a new secret key, and a new API key unless told to keep it; the pair in force before
 * stays valid for requests until the end of a window the caller gives, in real time, as
 * signatures are. Callbacks are signed with the new pair from the moment of the rotation, retries
 * and redeliveries re-signed too; a delivery resent with its first signature (`resign: false`)
 * still carries the old one. One previous pair is kept: a second rotation replaces it.
 */

/** The keys of an account before its last rotation, valid until `untilMs` (milliseconds since 1970, real time). */
export interface PreviousKeys extends Credentials {
  readonly untilMs: number;
}

/** An account whose keys rotate: its keys now, and the pair before the last rotation. */
export interface RotatingAccount {
  apiKey: string;
  secretKey: string;
  previousKeys: PreviousKeys | undefined;
}

/** Options of `sandbox.rotateKeys`. */
export interface RotateKeysOptions {
  /**
   * How long the keys in force before stay valid for requests, in seconds of real time: the
   * window your API clients have to take the new ones. 0 ends them at once.
   * @example 3600
   */
  readonly windowSeconds: number;
  /**
   * Rotate the secret key only, keeping the API key.
   * @default false
   */
  readonly keepApiKey?: boolean | undefined;
}

/** What a rotation gave: the account's new keys, and the previous ones with the end of their window. */
export interface RotatedKeys {
  readonly account: Api;
  readonly apiKey: string;
  readonly secretKey: string;
  readonly previous: { readonly apiKey: string; readonly secretKey: string; readonly until: Date };
}

/** At most 30 days: a longer window is a typo for a shorter unit, and keeps a leaked key alive. */
const MAX_WINDOW_SECONDS = 30 * 86_400;

/** rotateKeys' options, declared once: the control route and the CLI read the same. @internal */
export const ROTATE_KEYS_OPTIONS = declareOptions<RotateKeysOptions>()([
  { name: 'windowSeconds', rule: { type: 'number', min: 0, max: MAX_WINDOW_SECONDS, integer: true, unit: 'seconds' }, required: true, note: 'at most 30 days' },
  { name: 'keepApiKey', rule: { type: 'boolean' }, default: false },
]);

/** The key pairs a request may be signed with at `nowMs`: the current one, then the previous one while its window is open. */
export function acceptedKeys(account: RotatingAccount, nowMs: number): readonly Credentials[] {
  const current = { apiKey: account.apiKey, secretKey: account.secretKey };
  const previous = account.previousKeys;
  return previous !== undefined && nowMs < previous.untilMs ? [current, previous] : [current];
}

/**
 * Gives `account` new keys drawn from `random` (the seed's rotation stream, so that a seed
 * rotates the same way on every run), and keeps the pair in force for the window.
 * @throws {RequestValidationError} (`invalid_option`) for a window out of range
 */
export function rotateAccountKeys(name: Api, account: RotatingAccount, options: RotateKeysOptions, random: SeededRandom, nowMs: number): RotatedKeys {
  checkOptions('sandbox.rotateKeys', options, ROTATE_KEYS_OPTIONS);
  const prefix = name === 'provider' ? 'prov' : 'dealer';
  const untilMs = nowMs + options.windowSeconds * 1000;
  const previous: PreviousKeys = { apiKey: account.apiKey, secretKey: account.secretKey, untilMs };
  account.previousKeys = previous;
  if (options.keepApiKey !== true) account.apiKey = `${prefix}_api_${random.hex(12)}`;
  account.secretKey = `${prefix}_secret_${random.alphanumeric(24)}`;
  return { account: name, apiKey: account.apiKey, secretKey: account.secretKey, previous: { apiKey: previous.apiKey, secretKey: previous.secretKey, until: new Date(untilMs) } };
}
