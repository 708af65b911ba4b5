import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import * as nodeHash from '../../src/internal/hash/sha256.js';
import { constantTimeEqual } from '../../src/internal/hash/constant-time.js';
import { pureHmacSha256Hex, pureSha256Hex as sha256Hex } from '../../src/internal/hash/pure-sha256.js';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex (the pure-JS SHA-256 the main entry uses on every runtime)', () => {
  // FIPS 180-4 examples, and the lengths around the padding boundaries (55, 56, 63, 64 bytes).
  test.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
    ['a'.repeat(55), '9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318'],
    ['a'.repeat(56), 'b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a'],
    ['a'.repeat(64), 'ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb'],
  ])('FIPS 180-4 / padding: %j', (text, expected) => {
    expect(sha256Hex(text)).toBe(expected);
  });

  test('a million "a" (FIPS 180-4), then shorter and longer texts reuse the scratch space correctly', () => {
    expect(sha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
    for (const length of [3, 1000, 2000, 10, 5000, 300, 64]) expect(sha256Hex('ab'.repeat(length))).toBe(nodeSha256('ab'.repeat(length)));
  });

  test('the node:crypto path gives the same hashes', () => {
    for (const text of ['', 'abc', 'smoke_secret_ğüş_0001', 'x'.repeat(200)]) expect(nodeHash.sha256Hex(text)).toBe(sha256Hex(text));
  });

  // A fresh copy of hash/sha256.ts for each case, under a `process` whose getBuiltinModule is the
  // case's: it takes node:crypto once, on its first hash.
  async function freshNodeHash(getBuiltinModule: ((id: string) => unknown) | undefined): Promise<(text: string) => string> {
    vi.resetModules();
    vi.stubGlobal('process', { ...process, getBuiltinModule });
    try {
      return (await import('../../src/internal/hash/sha256.js')).sha256Hex;
    } finally {
      vi.unstubAllGlobals();
    }
  }

  test('the node:crypto path takes node:crypto on its first hash, not at import, and hashes with it', async () => {
    const asked: string[] = [];
    const fake = { hash: (_algorithm: string, text: string) => `node:crypto(${text})` };
    const hash = await freshNodeHash((id) => (asked.push(id), fake));
    expect(asked).toEqual([]);
    vi.stubGlobal('process', { ...process, getBuiltinModule: (id: string) => (asked.push(id), fake) });
    try {
      expect([hash('abc'), hash('def')]).toEqual(['node:crypto(abc)', 'node:crypto(def)']);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(asked).toEqual(['node:crypto']);
  });

  const refuse = (): never => {
    throw new Error('A Node.js API is used (process.getBuiltinModule) which is not supported in the Edge Runtime.');
  };
  test.each([
    ['is missing (Node before 20.16, edge runtimes)', undefined],
    ['throws (Next.js edge runtime)', refuse],
  ])('hashes in plain JavaScript where process.getBuiltinModule %s', async (_where, getBuiltinModule) => {
    const hash = await freshNodeHash(getBuiltinModule);
    vi.stubGlobal('process', { ...process, getBuiltinModule });
    try {
      expect(hash('smoke_secret_ğüş_0001')).toBe(nodeSha256('smoke_secret_ğüş_0001'));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  test('equals node:crypto on any text, including non-ASCII and lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 150 }), (text) => sha256Hex(text) === nodeSha256(text)),
      { numRuns: 300 },
    );
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => sha256Hex(text) === nodeSha256(text)), { numRuns: 300 });
    // Generous: a loaded machine must not turn a correct property into a timeout.
  }, 60_000);
});

describe('hmacSha256Hex (a job\'s seal, on every runtime)', () => {
  const nodeHmac = (key: string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest('hex');

  // RFC 4231, the cases whose keys are text: 1 (twenty 0x0b) and 2 ("Jefe").
  test.each([
    ['\u000b'.repeat(20), 'Hi There', 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7'],
    ['Jefe', 'what do ya want for nothing?', '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
  ])('RFC 4231: key %j', (key, text, expected) => {
    expect(pureHmacSha256Hex(key, text)).toBe(expected);
    expect(nodeHash.hmacSha256Hex(key, text)).toBe(expected);
  });

  test('keys shorter than, equal to and longer than the 64-byte block, and long texts, equal node:crypto', () => {
    for (const key of ['', 'k', 'k'.repeat(63), 'k'.repeat(64), 'k'.repeat(65), 'ğ'.repeat(40), 'secret'.repeat(50)]) {
      for (const text of ['', 'payorch job seal\n{}', 'x'.repeat(5000), 'ğüş'.repeat(700)]) expect(pureHmacSha256Hex(key, text), `${key.length}/${text.length}`).toBe(nodeHmac(key, text));
    }
    // The SHA-256 sharing its scratch space still hashes right after an HMAC.
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  test('equals node:crypto on any key and text, including non-ASCII and lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.string({ unit: 'binary', maxLength: 300 }), (key, text) => pureHmacSha256Hex(key, text) === nodeHmac(key, text)),
      { numRuns: 300 },
    );
  }, 60_000);

  test('hashes in plain JavaScript where node:crypto has no createHmac', async () => {
    vi.resetModules();
    vi.stubGlobal('process', { ...process, getBuiltinModule: () => ({ hash: () => 'unused' }) });
    try {
      const { hmacSha256Hex } = await import('../../src/internal/hash/sha256.js');
      expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('constantTimeEqual', () => {
  test('agrees with node:crypto timingSafeEqual on equal-length strings, and is false for other lengths', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }), (a, b) => {
        const x = Buffer.from(a, 'utf16le');
        const y = Buffer.from(b, 'utf16le');
        const expected = x.length === y.length && timingSafeEqual(x, y);
        return constantTimeEqual(a, b) === expected && constantTimeEqual(a, a);
      }),
      { numRuns: 1000 },
    );
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual('a', '')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });
});
