import { describe, expectTypeOf, test } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import type { ProviderClientOptions, ProviderRequestOptions, Site, SiteList, Welcome } from '../../src/index.js';

declare const provider: ProviderClient;

describe('ProviderClient types', () => {
  test('welcome and sites.list return the shapes of spec 4.3 and 4.4', () => {
    expectTypeOf(provider.welcome()).resolves.toEqualTypeOf<Welcome>();
    expectTypeOf<Welcome['provider']['id']>().toEqualTypeOf<number>();
    expectTypeOf<Welcome['provider']['is_active']>().toEqualTypeOf<boolean>();
    expectTypeOf(provider.sites.list({ key: 'k' })).resolves.toEqualTypeOf<SiteList>();
    expectTypeOf<SiteList['sites']>().toEqualTypeOf<Site[]>();
    expectTypeOf<Site['created_at']>().toEqualTypeOf<string>();
  });

  test('sites.list needs the key and nothing else', () => {
    // @ts-expect-error key is required
    void provider.sites.list({});
    // @ts-expect-error unknown parameter
    void provider.sites.list({ key: 'k', page: 1 });
  });

  test('the address and the keys may come from the environment, the whole argument too; credentialKey is optional', () => {
    expectTypeOf(ProviderClient).constructorParameters.toEqualTypeOf<[options?: ProviderClientOptions | undefined]>();
    expectTypeOf(new ProviderClient()).toEqualTypeOf<ProviderClient>();
    expectTypeOf(new ProviderClient({ baseUrl: 'https://x', apiKey: 'a', secretKey: 's' })).toEqualTypeOf<ProviderClient>();
    expectTypeOf(new ProviderClient({ baseUrl: 'https://x' })).toEqualTypeOf<ProviderClient>();
    expectTypeOf(new ProviderClient({ credentialKey: 'c' })).toEqualTypeOf<ProviderClient>();
    // @ts-expect-error the address is text
    expectTypeOf(new ProviderClient({ baseUrl: new URL('https://x') })).toEqualTypeOf<ProviderClient>();
  });

  test('withSite returns a full client', () => {
    expectTypeOf(provider.withSite('key')).toEqualTypeOf<ProviderClient>();
  });

  test('every call takes the per-call options as its last argument', () => {
    expectTypeOf<Parameters<ProviderClient['welcome']>>().toEqualTypeOf<[options?: ProviderRequestOptions | undefined]>();
    expectTypeOf<ProviderRequestOptions>().toHaveProperty('credentialKey');
    expectTypeOf<ProviderRequestOptions>().toHaveProperty('signal');
    expectTypeOf<ProviderRequestOptions>().toHaveProperty('timeout');
  });

  test('request() needs the value its hash covers and returns unknown JSON', () => {
    expectTypeOf(provider.request({ method: 'POST', path: '/x', hash: 'basic' })).resolves.toBeUnknown();
    void provider.request({ method: 'POST', path: '/x', hash: 'credential' });
    // @ts-expect-error the key hash needs its key
    void provider.request({ method: 'POST', path: '/x', hash: 'key' });
    // @ts-expect-error only GET and POST
    void provider.request({ method: 'PUT', path: '/x', hash: 'basic' });
  });
});
