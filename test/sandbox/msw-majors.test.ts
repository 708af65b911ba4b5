import { http } from 'msw';
import { setupServer } from 'msw/node';
import { http as http2 } from 'msw2';
import { setupServer as setupServer2 } from 'msw2/node';
import { expect, test, vi } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';

// payorch's msw peer range is `^2.15 || ^3`: the sandbox's handlers serve the client through both
// majors, each listening as the sandbox guide says (msw 3 renamed the option for unhandled requests).
const sandbox = createSandbox();
const baseUrl = 'https://pay.example.test';
const majors = [
  ['msw 3', () => {
    const server = setupServer(...sandbox.mswHandlers(http, { baseUrl }));
    server.listen({ onUnhandledFrame: 'error' });
    return server;
  }],
  ['msw 2', () => {
    const server = setupServer2(...sandbox.mswHandlers(http2, { baseUrl }));
    server.listen({ onUnhandledRequest: 'error' });
    return server;
  }],
] as const;

test.each(majors)('the sandbox answers the client through %s', async (_major, listen) => {
  const server = listen();
  try {
    const { apiKey, secretKey } = sandbox.accounts.provider;
    const answer = await new ProviderClient({ baseUrl, apiKey, secretKey, maxRetries: 0 }).welcome();
    expect(answer.success).toBe(true);
  } finally {
    server.close();
  }
});

test("onUnhandledFrame: 'error', as the sandbox guide sets it, fails a request no handler answers on msw 3", async () => {
  const server = setupServer(http.get('https://pay.example.test/known', () => Response.json({})));
  // msw 3 ignores msw 2's onUnhandledRequest: it would only warn, and the request would go out.
  const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  server.listen({ onUnhandledFrame: 'error' });
  try {
    const client = new ProviderClient({ baseUrl: 'https://unhandled.example.test', apiKey: 'a', secretKey: 's', maxRetries: 0 });
    await expect(client.welcome()).rejects.toThrow();
    expect(printed.mock.calls.flat().join(' ')).toContain('intercepted a request without a matching request handler');
  } finally {
    server.close();
  }
});
