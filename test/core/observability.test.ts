import { describe, expect, test } from 'vitest';
import { maskSecret, redactHeaders } from '../../src/internal/observer.js';

describe('maskSecret', () => {
  test('keeps at most the last 4 characters', () => {
    expect(maskSecret('site_cred_3b1e9d')).toBe('…1e9d');
    expect(maskSecret('a'.repeat(64))).toBe('…aaaa');
  });

  test('keeps nothing of a value under 12 characters, where 4 would be a third of it', () => {
    expect(maskSecret('short_key_1')).toBe('…');
    expect(maskSecret('')).toBe('…');
  });
});

describe('redactHeaders', () => {
  test('cuts the keys and the hash, whatever their case, and leaves the other headers', () => {
    expect(
      redactHeaders({
        'X-Api-Key': 'prov_api_4f9a1c',
        'x-hash': 'f'.repeat(60) + '1234',
        'X-KEY': 'xkey_9f8e7d6c5b4a3210',
        'X-Credential-Key': 'site_cred_3b1e9d',
        'X-Timestamp': '1763812345',
        'Content-Type': 'application/json',
      }),
    ).toEqual({
      'X-Api-Key': '…9a1c',
      'x-hash': '…1234',
      'X-KEY': '…3210',
      'X-Credential-Key': '…1e9d',
      'X-Timestamp': '1763812345',
      'Content-Type': 'application/json',
    });
  });
});
