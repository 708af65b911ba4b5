import { expect, test, vi } from 'vitest';
import { DealerClient, PayorchError, ProviderClient } from '../../src/index.js';

// Each API's endpoint tables are imported on a client's first call (src/provider/calls.ts,
// src/dealer/calls.ts): when that import fails (a package copied without its chunks, a bundler
// that dropped one), the call fails with a PayorchError that says what failed and that nothing
// was sent, not a bare module error.
vi.mock('../../src/provider/calls.js', () => {
  throw new Error('Cannot find module ./calls-X.js');
});
vi.mock('../../src/dealer/calls.js', () => {
  throw new Error('Cannot find module ./calls-Y.js');
});

test('a failed import of the endpoint tables fails the call with a PayorchError, nothing sent', async () => {
  const fetch = vi.fn<typeof globalThis.fetch>();
  const client = new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's', fetch });
  const error: unknown = await client.manual.startDeposit({ fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 }, { credentialKey: 'c' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PayorchError);
  expect((error as PayorchError).message).toMatch(/could not load its endpoint tables/);
  expect((error as PayorchError).outcome).toBe('not_sent');
  expect(fetch).not.toHaveBeenCalled();
  // Every call fails so while the import does (that it is tried again: test/internal/lazy-module.test.ts).
  await expect(client.welcome()).rejects.toThrow(/could not load its endpoint tables/);
});

test('a dealer call fails the same way when the dealer tables cannot be imported', async () => {
  const fetch = vi.fn<typeof globalThis.fetch>();
  const client = new DealerClient({ baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's', fetch });
  const error: unknown = await client.settings.get().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PayorchError);
  expect((error as PayorchError).outcome).toBe('not_sent');
  expect((error as PayorchError).message).toMatch(/could not load its endpoint tables/);
  expect(fetch).not.toHaveBeenCalled();
});
