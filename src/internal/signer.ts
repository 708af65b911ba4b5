import { assertNever } from './assert-never.js';
// node:crypto on Node, Bun and Deno, pure JS elsewhere: package.json `imports` (docs/decisions.md).
import { sha256Hex } from './hash/sha256.js';

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
      return sha256Hex(credentials.apiKey + credentials.secretKey + timestamp);
    case 'key':
      return sha256Hex(credentials.apiKey + credentials.secretKey + signing.key + timestamp);
    case 'credential':
      return sha256Hex(credentials.apiKey + credentials.secretKey + signing.credentialKey + timestamp);
    default:
      return assertNever(signing);
  }
}

/** The X-Hash of a callback: api_key + secret_key + tracking_code + status + timestamp (spec 5.3). */
export function callbackHash(credentials: Credentials, trackingCode: string, status: string, timestamp: string): string {
  return sha256Hex(credentials.apiKey + credentials.secretKey + trackingCode + status + timestamp);
}
