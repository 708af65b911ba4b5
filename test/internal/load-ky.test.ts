import { expect, test, vi } from 'vitest';
import { ConnectionError, PayorchError, ProviderClient } from '../../src/index.js';

// ky is imported on a client's first call (src/internal/call-engine.ts). When that import fails
// (a bundler that left it out, a runtime that cannot resolve it), nothing was sent: the call fails
// with a PayorchError that says so, never with a ConnectionError that says money may have moved.
vi.mock('ky', () => {
  throw new Error('Cannot find package "ky"');
});

test('a failed import of ky fails a payment call with a PayorchError: nothing sent, and it says so', async () => {
  const fetch = vi.fn<typeof globalThis.fetch>();
  const provider = new ProviderClient({ baseUrl: 'https://pay.example.com', apiKey: 'k', secretKey: 's', credentialKey: 'c', fetch });
  const error: unknown = await provider.manual.startDeposit({ username: 'ayse', user_id: 'u-42', fullname: 'Ayşe Yılmaz', amount: 250 }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PayorchError);
  expect(error).not.toBeInstanceOf(ConnectionError);
  expect(error).toMatchObject({ outcome: 'not_sent', message: expect.stringMatching(/^payorch could not load ky, its HTTP client \(imported on a client's first call\): .+\. Nothing was sent: it is safe to send again\.$/) as unknown });
  // Tried again on the next call, not kept as a failure for good.
  await expect(provider.welcome()).rejects.toThrow(/could not load ky/);
  expect(fetch).not.toHaveBeenCalled();
});
