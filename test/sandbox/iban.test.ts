import { describe, expect, test } from 'vitest';
import { formatIban, isValidIban, turkishIban } from '../../src/tools/sandbox/iban.js';
import { SeededRandom } from '../../src/tools/sandbox/random.js';

describe('IBANs', () => {
  test('a valid IBAN passes, with or without spaces and in any case', () => {
    expect(isValidIban('TR330006100519786457841326')).toBe(true);
    expect(isValidIban('TR33 0006 1005 1978 6457 8413 26')).toBe(true);
    expect(isValidIban('gb82west12345698765432')).toBe(true);
  });

  test('a changed digit, a short or a malformed IBAN fails', () => {
    expect(isValidIban('TR330006100519786457841327')).toBe(false);
    expect(isValidIban('TR33000610051')).toBe(false);
    expect(isValidIban('3300TR06100519786457841326')).toBe(false);
    expect(isValidIban('')).toBe(false);
  });

  test('generated Turkish IBANs are 26 characters with valid check digits', () => {
    const random = new SeededRandom('iban');
    for (let index = 0; index < 200; index++) {
      const iban = turkishIban(random);
      expect(iban).toMatch(/^TR\d{24}$/);
      expect(isValidIban(iban)).toBe(true);
    }
  });

  test('the formatted IBAN groups four characters', () => {
    expect(formatIban('TR330006100519786457841326')).toBe('TR33 0006 1005 1978 6457 8413 26');
  });
});
