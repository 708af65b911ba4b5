import { expect } from 'vitest';
import { PROVIDER, expectSigned } from './wire.js';
import type { WireRequest } from './wire.js';

/** The hash a provider request must carry, with the value it covers (spec 5.1). */
export type ExpectedSigning = { hash: 'basic' } | { hash: 'key'; key: string } | { hash: 'credential'; credentialKey: string };

/**
 * Asserts a provider request as it reached the wire: POST to exactly `/api/provider{path}` with
 * no query, the spec 5.1 headers with the hash recomputed independently, X-Key and
 * X-Credential-Key present exactly when the hash covers them, no header carrying the secret key,
 * and the exact body text ('' for none).
 */
export function expectProviderRequest(request: WireRequest, expected: { path: string; signing: ExpectedSigning; body: string }): void {
  const { signing } = expected;
  expect(request.method).toBe('POST');
  expect(request.url.pathname).toBe(`/api/provider${expected.path}`);
  expect(request.url.search).toBe('');
  expectSigned(request, PROVIDER, signing.hash === 'key' ? signing.key : signing.hash === 'credential' ? signing.credentialKey : '');
  expect(request.headers.get('x-key')).toBe(signing.hash === 'key' ? signing.key : null);
  expect(request.headers.get('x-credential-key')).toBe(signing.hash === 'credential' ? signing.credentialKey : null);
  for (const [name, value] of request.headers) expect(value, `header ${name}`).not.toContain(PROVIDER.secretKey);
  expect(request.body).toBe(expected.body);
}
