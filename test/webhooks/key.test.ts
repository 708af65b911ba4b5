import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { callbackKeyString } from '../../src/index.js';
import type { CallbackKey } from '../../src/index.js';

const PINNED = 'payorch-cb1-63d9078865d5681a9cb0f90aa527335d288be81d197a346d67d5d232c2eeca18';
const key = (merchantId: string, trackingCode: string, status: string): CallbackKey => ({ merchantId, trackingCode, status });

// Pinned: merchants store these strings at other services, so a change of form is a breaking change.
test('gives the documented string for a known key, the same in every version', () => {
  expect(callbackKeyString(key('merchant-eu', 'MAN-a8Xk29Qp-1763812000', 'completed'))).toBe(PINNED);
});

test('is payorch-cb1- and the hex SHA-256 of the JSON array of account, tracking code and status, for any text', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), fc.string(), fc.string(), (account, trackingCode, status) => {
      const digest = createHash('sha256').update(JSON.stringify([account, trackingCode, status]), 'utf8').digest('hex');
      expect(callbackKeyString(key(account, trackingCode, status))).toBe(`payorch-cb1-${digest}`);
    }),
  );
});

test('keeps the parts apart: moving characters between parts gives another string', () => {
  const forms = [key('ab', 'c', 'd'), key('a', 'bc', 'd'), key('a', 'b', 'cd'), key('a"', 'b', 'c'), key('a', '"b', 'c')].map(callbackKeyString);
  expect(new Set(forms).size).toBe(forms.length);
  for (const form of forms) expect(form).toMatch(/^payorch-cb1-[0-9a-f]{64}$/);
});

test('carries no part of the key in clear: the account may be the API key', () => {
  expect(callbackKeyString(key('prov_api_4f9a1c', 'MAN-a8Xk29Qp-1763812000', 'completed'))).not.toMatch(/prov_api|a8Xk29Qp|completed/);
});
