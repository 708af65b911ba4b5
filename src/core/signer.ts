import { createHash } from 'node:crypto';
import { assertNever } from './assert-never.js';

/**
 * Which hash of spec 5.1 a request carries, with the extra value it covers.
 * `key` adds the X-Key header, `credential` the X-Credential-Key header.
 */
export type Signing =
  | { readonly hash: 'basic' }
  | { readonly hash: 'key'; readonly key: string }
  | { readonly hash: 'credential'; readonly credentialKey: string };

/** The key pair that signs requests and callbacks. The secret only ever enters a hash. */
export interface Credentials {
  readonly apiKey: string;
  readonly secretKey: string;
}

/** Lowercase hex SHA-256 of the UTF-8 concatenation of `parts`, with no separator (spec 5.1). */
export function sha256Hex(...parts: readonly string[]): string {
  return createHash('sha256').update(parts.join(''), 'utf8').digest('hex');
}

/**
 * The X-Hash of a request: basic = api_key + secret_key + timestamp; key and credential
 * put their value between the secret and the timestamp.
 *
 * @example
 * ```ts
 * requestHash({ apiKey, secretKey }, { hash: 'basic' }, '1763812345');
 * ```
 */
export function requestHash(credentials: Credentials, signing: Signing, timestamp: string): string {
  switch (signing.hash) {
    case 'basic':
      return sha256Hex(credentials.apiKey, credentials.secretKey, timestamp);
    case 'key':
      return sha256Hex(credentials.apiKey, credentials.secretKey, signing.key, timestamp);
    case 'credential':
      return sha256Hex(credentials.apiKey, credentials.secretKey, signing.credentialKey, timestamp);
    default:
      return assertNever(signing);
  }
}

/** The X-Hash of a callback: api_key + secret_key + tracking_code + status + timestamp (spec 5.3). */
export function callbackHash(credentials: Credentials, trackingCode: string, status: string, timestamp: string): string {
  return sha256Hex(credentials.apiKey, credentials.secretKey, trackingCode, status, timestamp);
}

/**
 * Compares two strings in time that depends only on their lengths, so that a forger learns
 * nothing from how long a mismatch took: every character of `expected` is visited whatever
 * `actual` holds, and no branch depends on where they differ. Plain JavaScript: it allocates
 * nothing (two Buffer copies per comparison cost more than the SHA-256 they guard, bench/findings.md)
 * and needs no Node built-in.
 */
export function constantTimeEqual(actual: string, expected: string): boolean {
  let difference = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    // Past the end of `actual`, charCodeAt gives NaN, which `^` reads as 0: the lengths already differ.
    difference |= actual.charCodeAt(i) ^ expected.charCodeAt(i);
  }
  return difference === 0;
}
