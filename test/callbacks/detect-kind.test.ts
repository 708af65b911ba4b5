import { describe, expect, test } from 'vitest';
import { detectCallbackKind } from '../../src/callbacks/detect-kind.js';
import { refusal } from '../helpers/callbacks.js';


describe('detectCallbackKind', () => {
  test.each([
    ['MAN', 'deposit'],
    ['EIBAN', 'deposit'],
    ['TPBD', 'deposit'],
    ['TPCD', 'deposit'],
    ['TPWD', 'deposit'],
    ['DEP', 'deposit'],
    ['WIT', 'withdrawal'],
    ['EIBAN-WIT', 'withdrawal'],
    ['TPBW', 'withdrawal'],
    ['TPCW', 'withdrawal'],
    ['TPWW', 'withdrawal'],
    ['WDR', 'withdrawal'],
  ])('a %s tracking code is a %s callback', (prefix, kind) => {
    expect(detectCallbackKind({ tracking_code: `${prefix}-a1B2-1763812000` })).toBe(kind);
  });

  test.each(['site_id', 'username', 'user_id'])('a CC body with %s alone is a provider creditCard callback', (field) => {
    expect(detectCallbackKind({ tracking_code: 'CC-a1-1763812000', [field]: 'x' })).toBe('creditCard');
  });

  test.each(['status_message', 'customer_phone', 'completed_at'])('a CC body with %s alone is a dealerCreditCard callback', (field) => {
    expect(detectCallbackKind({ tracking_code: 'CC-a1-1763812000', [field]: false })).toBe('dealerCreditCard');
  });

  test.each([
    ['success, which a provider body may carry too', { success: true }],
    ['fields of both sides', { site_id: 7, customer_phone: '+90' }],
    ['fields of neither side', { amount: 5 }],
    ['a dealer field that is null', { customer_phone: null }],
  ])('a CC body with %s is a provider creditCard callback, never refused', (_name, fields) => {
    expect(detectCallbackKind({ tracking_code: 'CC-a1-1763812000', ...fields })).toBe('creditCard');
  });

  test.each([
    ['provider', { customer_phone: '+90', status_message: 'ok' }, 'creditCard'],
    ['dealer', { site_id: 7, username: 'ada' }, 'dealerCreditCard'],
  ] as const)('the %s account decides a CC body whatever its fields', (account, fields, kind) => {
    expect(detectCallbackKind({ tracking_code: 'CC-a1-1763812000', ...fields }, account)).toBe(kind);
  });

  test('a field present as undefined does not count', () => {
    expect(detectCallbackKind({ tracking_code: 'CC-a1-1763812000', site_id: 7, success: undefined })).toBe('creditCard');
  });

  test.each([
    ['a transfer id', { tracking_code: 'TRF-a1' }, 'transfers have no callback'],
    ['an unknown prefix', { tracking_code: 'REF-a1-1763812000' }, 'no prefix of spec 2.1'],
    ['a tracking code that is not a string', { tracking_code: 42 }, 'no prefix of spec 2.1'],
    ['no tracking code', {}, 'no prefix of spec 2.1'],
  ])('refuses %s as unknown_kind, asking for kind', (_name, body, message) => {
    const error = refusal(() => detectCallbackKind(body));
    expect(error.reason).toBe('unknown_kind');
    expect(error.message).toContain(message);
    expect(error.message).toContain('kind');
  });
});
