import { constantTimeEqual } from '../../internal/hash/constant-time.js';
import { requestHash } from '../../internal/signer.js';
import type { Credentials, Signing } from '../../internal/signer.js';
import type { AuthFailure } from './answers.js';
import { acceptedKeys } from './keys.js';
import type { RotatingAccount } from './keys.js';

/** Spec 5.1 and 5.2: X-Timestamp must lie within 5 minutes of the service's time. */
const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** The account a request must be signed for, and the values its hash may cover. */
export interface SignedAccount extends Credentials {
  /** The provider's additional verification key (X-Key), for the key hash. */
  readonly key?: string;
}

/** What a valid signature proved: for the credential hash, the credential key it covered. */
export type SignatureCheck = { readonly ok: true; readonly credentialKey: string | undefined } | { readonly ok: false; readonly failure: AuthFailure };

/**
 * Checks the headers and hash of spec 5.1 / 5.2 in the order of the 7.1 table: headers present,
 * API key known, timestamp fresh, hash right. Every secret comparison is constant-time.
 */
export function checkSignature(headers: Headers, account: SignedAccount, hash: Signing['hash'], nowMs: number): SignatureCheck {
  const apiKey = headers.get('x-api-key');
  const givenHash = headers.get('x-hash');
  const timestamp = headers.get('x-timestamp');
  const extra = hash === 'key' ? headers.get('x-key') : hash === 'credential' ? headers.get('x-credential-key') : '';
  if (!apiKey || !givenHash || !timestamp || extra === null || (hash !== 'basic' && extra === '')) return fail('missing_headers');
  if (!constantTimeEqual(apiKey, account.apiKey)) return fail('invalid_api_key');
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - nowMs / 1000) > TIMESTAMP_TOLERANCE_SECONDS) return fail('timestamp_expired');

  let signing: Signing;
  switch (hash) {
    case 'basic':
      signing = { hash: 'basic' };
      break;
    case 'key':
      // The service hashes its own copy of the key: a wrong X-Key cannot produce a valid hash.
      if (account.key === undefined || !constantTimeEqual(extra, account.key)) return fail('invalid_hash');
      signing = { hash: 'key', key: account.key };
      break;
    case 'credential':
      // Whose key it is, is checked after the signature (7.3), by the caller.
      signing = { hash: 'credential', credentialKey: extra };
      break;
  }
  if (!constantTimeEqual(givenHash, requestHash(account, signing, timestamp))) return fail('invalid_hash');
  return { ok: true, credentialKey: hash === 'credential' ? extra : undefined };
}

const fail = (failure: AuthFailure): SignatureCheck => ({ ok: false, failure });

/**
 * {@link checkSignature} with each key pair the account accepts at `nowMs`: its keys, and after a
 * rotation the pair before it until its window ends. A refusal is the one of a pair whose API key
 * matched, when one did: a right API key with a wrong hash is `invalid_hash`.
 */
export function checkAccountSignature(headers: Headers, account: SignedAccount & RotatingAccount, hash: Signing['hash'], nowMs: number): SignatureCheck {
  let refusal: SignatureCheck | undefined;
  for (const pair of acceptedKeys(account, nowMs)) {
    const check = checkSignature(headers, { ...account, ...pair }, hash, nowMs);
    if (check.ok) return check;
    if (refusal === undefined || (!refusal.ok && refusal.failure === 'invalid_api_key')) refusal = check;
  }
  return refusal ?? fail('invalid_api_key');
}

/** True when `address` is whitelisted; an IPv4 address in IPv6 form (`::ffff:127.0.0.1`) matches its IPv4 entry. */
export function isWhitelisted(address: string, whitelist: readonly string[]): boolean {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return whitelist.some((allowed) => allowed === address || allowed === plain);
}
