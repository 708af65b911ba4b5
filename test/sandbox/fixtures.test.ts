import { describe, expect, test } from 'vitest';
import { buildFixtures, centsToDecimal, toCents } from '../../src/tools/sandbox/fixtures.js';
import { isValidIban } from '../../src/tools/sandbox/iban.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';

describe('seeded fixtures', () => {
  test('the same seed gives the same accounts; another seed other keys', () => {
    expect(createSandbox({ seed: 'a' }).accounts).toEqual(createSandbox({ seed: 'a' }).accounts);
    expect(createSandbox().accounts).toEqual(createSandbox({ seed: 'payorch' }).accounts);
    const [a, b] = [createSandbox({ seed: 'a' }).accounts, createSandbox({ seed: 'b' }).accounts];
    expect(a.provider.apiKey).not.toBe(b.provider.apiKey);
    expect(a.dealer.secretKey).not.toBe(b.dealer.secretKey);
  });

  test('the default accounts: a provider with two sites and an X-Key, a dealer', () => {
    const { provider, dealer } = createSandbox().accounts;
    expect(provider.apiKey).toMatch(/^prov_api_[0-9a-f]{12}$/);
    expect(provider.secretKey).toMatch(/^prov_secret_[A-Za-z0-9]{24}$/);
    expect(provider.key).toMatch(/^verify_[A-Za-z0-9]{12}$/);
    expect(provider.sites.map((site) => site.name)).toEqual(['Sandbox Store', 'Sandbox Market']);
    expect(new Set(provider.sites.map((site) => site.credentialKey)).size).toBe(2);
    expect(dealer.apiKey).toMatch(/^dealer_api_[0-9a-f]{12}$/);
  });

  test('overriding one value leaves every other seeded value as it was', () => {
    const plain = createSandbox().accounts;
    const changed = createSandbox({ provider: { apiKey: 'prov_api_mine' } }).accounts;
    expect(changed.provider).toEqual({ ...plain.provider, apiKey: 'prov_api_mine' });
    expect(changed.dealer).toEqual(plain.dealer);
  });

  test('sites given replace the defaults', () => {
    const sites = [{ id: 1, name: 'Only', credentialKey: 'cred-1' }] as const;
    expect(createSandbox({ provider: { sites } }).accounts.provider.sites).toEqual(sites);
  });

  test('every generated IBAN has valid check digits', () => {
    const { dealer } = buildFixtures({}, Date.UTC(2026, 0, 1));
    for (const iban of [...dealer.eibans.map((eiban) => eiban.iban), ...dealer.manualIbans.map((account) => account.iban)]) {
      expect(isValidIban(iban), iban).toBe(true);
    }
  });

  test('balances are kept in kuruş and shown as decimal strings', () => {
    expect(toCents(0.1 + 0.2)).toBe(30);
    expect(centsToDecimal(7)).toBe('0.07');
    expect(centsToDecimal(123_456)).toBe('1234.56');
    expect(centsToDecimal(-150)).toBe('-1.50');
  });
});
