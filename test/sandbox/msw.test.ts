import { http } from 'msw';
import { describe, expect, expectTypeOf, test } from 'vitest';
import type { HttpHandler } from 'msw';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { SANDBOX_BASE_URL, createSandbox } from '../../src/tools/sandbox/index.js';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';
import { customer } from '../helpers/sandbox.js';
import { server, useMsw } from '../mocks/server.js';

useMsw();

// The test setup runs one msw server with onUnhandledRequest: 'error'; the sandbox's handlers
// join it per test, as a user's suite would add them.
describe('sandbox.mswHandlers(http)', () => {
  test('are msw handlers, typed by the msw passed in', () => {
    const handlers = createSandbox().mswHandlers(http);
    expectTypeOf(handlers).toEqualTypeOf<HttpHandler[]>();
    // /api/*, /__sandbox and /__sandbox/*, and one per endpoint given a whole path.
    expect(handlers).toHaveLength(3 + new Set(API_ENDPOINTS.flatMap((row) => row.endpoint.fullPath ?? [])).size);
  });

  test('serve the clients through msw, with the global fetch', async () => {
    const sandbox = createSandbox();
    server.use(...sandbox.mswHandlers(http));
    const { apiKey, secretKey, sites } = sandbox.accounts.provider;
    const provider = new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey, secretKey, credentialKey: sites[0].credentialKey, maxRetries: 0 });
    const { data } = await provider.manual.startDeposit({ ...customer, amount: 100 });
    expect(sandbox.record(data.tracking_code)?.status).toBe('showing');
    const dealer = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, maxRetries: 0 });
    expect((await dealer.eibans.list()).total_eibans).toBe(2);
  });

  test('answer the base URL given, and the controls under it', async () => {
    const sandbox = createSandbox();
    server.use(...sandbox.mswHandlers(http, { baseUrl: 'https://pay.example.test/' }));
    const { apiKey, secretKey } = sandbox.accounts.provider;
    await expect(new ProviderClient({ baseUrl: 'https://pay.example.test', apiKey, secretKey, maxRetries: 0 }).welcome()).resolves.toMatchObject({ success: true });
    const controls = await fetch('https://pay.example.test/__sandbox');
    expect(await controls.json()).toMatchObject({ success: true, accounts: sandbox.accounts });
    const accounts = await fetch('https://pay.example.test/__sandbox/accounts');
    expect(await accounts.json()).toEqual({ success: true, accounts: sandbox.accounts });
  });
});
