import { expect, test, vi } from 'vitest';
import { DealerClient, PayorchError, ProviderClient } from '../../src/index.js';

// The transport's call engine is imported on a client's first call (src/internal/call-engine.ts),
// with the endpoint tables: when that import fails, the call fails with a PayorchError that says
// so and that nothing was sent, every time (that it is tried again: test/internal/lazy-module.test.ts).
vi.mock('../../src/internal/call-engine.js', () => {
  throw new Error('Cannot find module ./call-engine-X.js');
});

test('a failed import of the call engine fails each call, of either client, with a PayorchError, nothing sent', async () => {
  const fetch = vi.fn<typeof globalThis.fetch>();
  const provider = new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's', fetch });
  const error: unknown = await provider.welcome().catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PayorchError);
  expect((error as PayorchError).message).toMatch(/could not load its call engine/);
  expect((error as PayorchError).outcome).toBe('not_sent');
  await expect(new DealerClient({ baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's', fetch }).request({ method: 'GET', path: '/eibans' })).rejects.toThrow(/could not load its call engine/);
  expect(fetch).not.toHaveBeenCalled();
});
