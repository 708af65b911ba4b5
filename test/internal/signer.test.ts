import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { constantTimeEqual } from '../../src/internal/hash/constant-time.js';
import { callbackHash, requestHash } from '../../src/internal/signer.js';
import type { Signing } from '../../src/internal/signer.js';

interface RequestVector {
  name: string;
  hash: 'basic' | 'key' | 'credential';
  api_key: string;
  secret_key: string;
  key?: string;
  credential_key?: string;
  timestamp: string;
  expected: string;
}
interface CallbackVector {
  name: string;
  api_key: string;
  secret_key: string;
  tracking_code: string;
  status: string;
  timestamp: string;
  expected: string;
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/vectors/signing.json', import.meta.url), 'utf8')) as {
  requests: RequestVector[];
  callbacks: CallbackVector[];
};

function signingOf(vector: RequestVector): Signing {
  switch (vector.hash) {
    case 'basic':
      return { hash: 'basic' };
    case 'key':
      return { hash: 'key', key: vector.key ?? '' };
    case 'credential':
      return { hash: 'credential', credentialKey: vector.credential_key ?? '' };
  }
}

describe('request hashes', () => {
  test('the vector file holds at least one vector of each hash', () => {
    expect(new Set(vectors.requests.map((vector) => vector.hash))).toEqual(new Set(['basic', 'key', 'credential']));
  });

  test.each(vectors.requests)('$name matches the externally computed hash', (vector) => {
    const credentials = { apiKey: vector.api_key, secretKey: vector.secret_key };
    expect(requestHash(credentials, signingOf(vector), vector.timestamp)).toBe(vector.expected);
  });

  test('a different timestamp gives a different hash', () => {
    const vector = vectors.requests[0]!;
    const credentials = { apiKey: vector.api_key, secretKey: vector.secret_key };
    expect(requestHash(credentials, signingOf(vector), '1763812346')).not.toBe(vector.expected);
  });
});

describe('callback hashes', () => {
  test.each(vectors.callbacks)('$name matches the externally computed hash', (vector) => {
    const credentials = { apiKey: vector.api_key, secretKey: vector.secret_key };
    expect(callbackHash(credentials, vector.tracking_code, vector.status, vector.timestamp)).toBe(vector.expected);
  });
});

describe('constantTimeEqual', () => {
  test('accepts equal strings and rejects a change of one character or of length', () => {
    expect(constantTimeEqual('abc123', 'abc123')).toBe(true);
    expect(constantTimeEqual('abc123', 'abc124')).toBe(false);
    expect(constantTimeEqual('abc123', 'abc12')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
  });
});
