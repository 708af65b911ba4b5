import { describe, expect, test } from 'vitest';
import { generateHistory, transactionDate } from '../../src/tools/sandbox/history.js';
import { isValidIban } from '../../src/tools/sandbox/iban.js';

const END = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('generated E-IBAN history', () => {
  const history = generateHistory('seed', 'wallet-1', END, 10, 100);

  test('is the same for the same seed and wallet, and differs between wallets', () => {
    expect(generateHistory('seed', 'wallet-1', END, 10, 100)).toEqual(history);
    expect(generateHistory('seed', 'wallet-2', END, 10, 100)[0]?.transactionId).not.toBe(history[0]?.transactionId);
  });

  test('is oldest first, before the end, and about perDay records a day', () => {
    const times = history.map((transaction) => transaction.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBeLessThan(END);
    expect(times[0]).toBeGreaterThanOrEqual(END - 11 * 86_400_000);
    expect(history.length).toBeGreaterThan(10 * 60);
    expect(history.length).toBeLessThan(11 * 140);
  });

  test('has unique ids, whole-kuruş amounts and valid sender IBANs', () => {
    expect(new Set(history.map((transaction) => transaction.transactionId)).size).toBe(history.length);
    for (const transaction of history.slice(0, 50)) {
      expect(Number.isInteger(transaction.amountCents) && transaction.amountCents > 0).toBe(true);
      expect(isValidIban(transaction.senderIban)).toBe(true);
      expect(transaction.type).toBe('incoming');
      expect(transactionDate(transaction)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    }
  });
});
