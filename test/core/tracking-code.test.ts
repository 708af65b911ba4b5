import { describe, expect, test } from 'vitest';
import { TrackingCodeError, parseTrackingCode, safeParseTrackingCode } from '../../src/index.js';

describe('parseTrackingCode', () => {
  test.each([
    ['MAN-a8Xk29Qp-1763812000', 'MAN', 'manualDeposit', 'deposit', 'a8Xk29Qp'],
    ['WIT-Q1w2-1763812000', 'WIT', 'manualWithdrawal', 'withdrawal', 'Q1w2'],
    ['EIBAN-x9-1763812000', 'EIBAN', 'eibanDeposit', 'deposit', 'x9'],
    ['EIBAN-WIT-7hQ2mZ-1763812000', 'EIBAN-WIT', 'eibanWithdrawal', 'withdrawal', '7hQ2mZ'],
    ['CC-k3J9x-1763812000', 'CC', 'creditCardPayment', 'card', 'k3J9x'],
    ['TPBD-b1-1763812000', 'TPBD', 'thirdPartyBankDeposit', 'deposit', 'b1'],
    ['TPBW-b2-1763812000', 'TPBW', 'thirdPartyBankWithdrawal', 'withdrawal', 'b2'],
    ['TPCD-c1-1763812000', 'TPCD', 'thirdPartyCryptoDeposit', 'deposit', 'c1'],
    ['TPCW-c2-1763812000', 'TPCW', 'thirdPartyCryptoWithdrawal', 'withdrawal', 'c2'],
    ['TPWD-w1-1763812000', 'TPWD', 'thirdPartyWalletDeposit', 'deposit', 'w1'],
    ['TPWW-w2-1763812000', 'TPWW', 'thirdPartyWalletWithdrawal', 'withdrawal', 'w2'],
    ['DEP-d1-1763812000', 'DEP', 'dealerManualDeposit', 'deposit', 'd1'],
    ['WDR-d2-1763812000', 'WDR', 'dealerManualWithdrawal', 'withdrawal', 'd2'],
  ])('%s is a %s code: %s, %s', (code, prefix, kind, direction, segment) => {
    expect(parseTrackingCode(code)).toEqual({ prefix, kind, direction, segment, createdAt: new Date('2025-11-22T11:46:40Z') });
  });

  test('the creation time is the Unix seconds at the end', () => {
    const parsed = parseTrackingCode('EIBAN-WIT-7hQ2mZ-1763811111');
    expect(parsed.direction === 'transfer' ? undefined : parsed.createdAt.toISOString()).toBe('2025-11-22T11:31:51.000Z');
  });

  test('EIBAN with the segment WIT is an E-IBAN deposit, not a withdrawal', () => {
    expect(parseTrackingCode('EIBAN-WIT-1763812000')).toMatchObject({ prefix: 'EIBAN', kind: 'eibanDeposit', segment: 'WIT' });
  });

  test('a transfer id has the prefix TRF, its segment and no creation time', () => {
    expect(parseTrackingCode('TRF-9fK2aa01')).toEqual({ prefix: 'TRF', kind: 'transfer', direction: 'transfer', segment: '9fK2aa01', createdAt: undefined });
  });

  test.each([
    '',
    'MAN',
    'MAN-a8Xk29Qp',
    'man-a8Xk29Qp-1763812000',
    'XYZ-a8Xk29Qp-1763812000',
    'MAN--1763812000',
    'MAN-a8_Xk-1763812000',
    'MAN-a8Xk29Qp-17638x2000',
    'MAN-a8Xk29Qp-1763812000 ',
    ' MAN-a8Xk29Qp-1763812000',
    'MAN-a8Xk29Qp-1234567890123',
    'TRF-',
    'TRF-ab-cd',
    `MAN-${'a'.repeat(200)}-1763812000`,
  ])('"%s" is not a tracking code', (code) => {
    expect(() => parseTrackingCode(code)).toThrow(TrackingCodeError);
  });

  test('a value that is not a string is refused with the same error', () => {
    expect(() => parseTrackingCode(42 as unknown as string)).toThrow(TrackingCodeError);
  });
});

describe('safeParseTrackingCode', () => {
  test('returns the parts on success and the error on failure, without throwing', () => {
    expect(safeParseTrackingCode('WDR-d2-1763812000')).toMatchObject({ success: true, data: { kind: 'dealerManualWithdrawal' } });
    const failure = safeParseTrackingCode('ORDER-42');
    expect(failure.success).toBe(false);
    expect(failure.success ? undefined : failure.error.value).toBe('ORDER-42');
  });
});
