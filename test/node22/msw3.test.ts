import { http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';

// msw 3 is the current major; `sandbox.mswHandlers(http)` takes its `http` as it takes msw 2's.
const sandbox = createSandbox();
const server = setupServer(...sandbox.mswHandlers(http, { baseUrl: 'https://pay.example.test' }));
beforeAll(() => { server.listen({ onUnhandledFrame: 'error' }); });
afterAll(() => { server.close(); });

test('the sandbox answers through msw 3', async () => {
  const { apiKey, secretKey } = sandbox.accounts.provider;
  const client = new ProviderClient({ baseUrl: 'https://pay.example.test', apiKey, secretKey, maxRetries: 0 });
  const answer = await client.welcome();
  expect(answer.success).toBe(true);
});
