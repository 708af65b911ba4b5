import { describe, expect, test } from 'vitest';
import { RecordClock } from '../../src/tools/sandbox/clock.js';
import { KINDS } from '../../src/tools/sandbox/record-kinds.js';
import type { SandboxRecordKind } from '../../src/tools/sandbox/record-kinds.js';
import { RecordStore } from '../../src/tools/sandbox/records.js';
import { parseTrackingCode } from '../../src/index.js';

const T = Date.UTC(2026, 0, 15, 9, 0, 0);

describe('RecordStore', () => {
  const store = new RecordStore('seed', new RecordClock(T), 1_800_000);

  test.each([
    ['manualDeposit', 'MAN'],
    ['manualWithdrawal', 'WIT'],
    ['eibanDeposit', 'EIBAN'],
    ['eibanWithdrawal', 'EIBAN-WIT'],
    ['cardPayment', 'CC'],
    ['dealerCardPayment', 'CC'],
    ['bankDeposit', 'TPBD'],
    ['bankWithdrawal', 'TPBW'],
    ['cryptoDeposit', 'TPCD'],
    ['cryptoWithdrawal', 'TPCW'],
    ['walletDeposit', 'TPWD'],
    ['walletWithdrawal', 'TPWW'],
    ['dealerManualDeposit', 'DEP'],
    ['dealerManualWithdrawal', 'WDR'],
  ] as const)('a %s gets a %s tracking code of spec 2.1 that the SDK parses', (kind: SandboxRecordKind, prefix) => {
    const { code } = store.create(kind, { amount: 1, params: {} });
    expect(code).toMatch(new RegExp(`^${prefix}-[A-Za-z0-9]+-${T / 1000}$`));
    expect(parseTrackingCode(code)).toMatchObject({ prefix, createdAt: new Date(T) });
  });

  test('a transfer gets a TRF- id', () => {
    expect(store.create('transfer', { amount: 10, params: {} }).code).toMatch(/^TRF-[A-Za-z0-9]+$/);
  });

  test('records start in the state of section 3.2, deposits with an expiry', () => {
    for (const kind of Object.keys(KINDS) as SandboxRecordKind[]) {
      const record = store.create(kind, { amount: 1, params: {} });
      expect(record.status, kind).toBe(KINDS[kind].initial);
    }
    expect(store.create('manualDeposit', { amount: 1, params: {} }).expiresAt).toBe(T + 1_800_000);
    expect(store.create('manualWithdrawal', { amount: 1, params: {} }).expiresAt).toBeUndefined();
  });

  test('10,000 records have 10,000 distinct codes', () => {
    const local = new RecordStore('seed', new RecordClock(T), 0);
    const codes = new Set(Array.from({ length: 10_000 }, () => local.create('manualDeposit', { amount: 1, params: {} }).code));
    expect(codes.size).toBe(10_000);
  });

  test('the parameters are copied, not shared', () => {
    const params = { iban: 'TR1' };
    const record = store.create('manualWithdrawal', { amount: 1, params });
    params.iban = 'changed';
    expect(record.params['iban']).toBe('TR1');
  });

  test('a record is due to expire at its expiry time, not before', () => {
    const clock = new RecordClock(T);
    const local = new RecordStore('seed', clock, 60_000);
    const deposit = local.create('manualDeposit', { amount: 1, params: {} });
    local.create('manualWithdrawal', { amount: 1, params: {} });
    expect(local.expired(T + 59_999)).toEqual([]);
    expect(local.expired(T + 60_000)).toEqual([deposit]);
  });

  test('a record made after the clock was moved back still expires at its own time, and one that has moved on is not due again', () => {
    const clock = new RecordClock(T);
    const local = new RecordStore('seed', clock, 60_000);
    const later = local.create('manualDeposit', { amount: 1, params: {} });
    expect(local.expired(T + 1_000)).toEqual([]);
    clock.set(T - 30_000);
    const earlier = local.create('manualDeposit', { amount: 1, params: {} });
    expect(local.expired(T + 29_999)).toEqual([]);
    expect(local.expired(T + 30_000)).toEqual([earlier]);
    earlier.status = 'expired';
    expect(local.expired(T + 59_999)).toEqual([]);
    expect(local.expired(T + 60_000)).toEqual([later]);
  });
});
