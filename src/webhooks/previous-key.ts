import { RequestValidationError } from '../errors/error.js';

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
   * `+03:00`), so that every instance reads the same moment. A moment in the past leaves it unused.
   */
  readonly until: Date | string;
}

// A zone is required: a local time would be another moment on an instance in another zone.
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

function refuse(where: string, field: string, message: string): never {
  throw new RequestValidationError(where, [{ field, rule: 'invalid_option', message }]);
}

/**
 * Checks `previousSecretKey` and returns the moment it ends, in milliseconds since 1970, or
 * undefined when none is given. Neither key is ever shown.
 * @throws {RequestValidationError} naming `previousSecretKey`, `previousSecretKey.secretKey` or `previousSecretKey.until`
 */
export function previousKeyUntil(where: string, options: { readonly secretKey: string; readonly previousSecretKey?: PreviousSecretKey | undefined }): number | undefined {
  const previous: unknown = options.previousSecretKey;
  if (previous === undefined) return undefined;
  if (typeof previous !== 'object' || previous === null) refuse(where, 'previousSecretKey', `must be { secretKey, until }; got ${previous === null ? 'null' : typeof previous}`);
  const { secretKey, until } = previous as { readonly secretKey?: unknown; readonly until?: unknown };
  if (typeof secretKey !== 'string' || secretKey === '') {
    refuse(where, 'previousSecretKey.secretKey', `must be a non-empty string; got ${secretKey === '' ? 'an empty string' : typeof secretKey}`);
  }
  if (secretKey === options.secretKey) refuse(where, 'previousSecretKey.secretKey', 'must differ from secretKey: it is the key in force before the rotation');
  let ms = Number.NaN;
  if (until instanceof Date) ms = until.getTime();
  else if (typeof until === 'string' && ISO_WITH_ZONE.test(until)) ms = Date.parse(until);
  if (!Number.isFinite(ms)) {
    const got = until instanceof Date ? 'an invalid Date' : typeof until === 'string' ? JSON.stringify(until.slice(0, 40)) : typeof until;
    refuse(where, 'previousSecretKey.until', `must be a Date or an ISO 8601 time with a zone, for example '2026-12-01T00:00:00Z' (the same moment on every instance); got ${got}`);
  }
  return ms;
}
