import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

// No default answers: every test states the exact answer it needs with server.use(), and any
// request a test did not expect fails it (onUnhandledFrame: 'error').
export const server = setupServer();

let listening = false;

/**
 * Intercepts this file's requests with msw: call once at the top of a test file that answers
 * through `server.use()` or `capture()`. Files that talk to real sockets do not call it, so
 * nothing stands between them and the network.
 */
export function useMsw(): void {
  beforeAll(() => {
    server.listen({ onUnhandledFrame: 'error' });
    listening = true;
  });
  afterEach(() => {
    server.resetHandlers();
  });
  afterAll(() => {
    server.close();
    listening = false;
  });
}

/** Throws unless this file called useMsw(): a handler nobody intercepts with would let the request reach the network. */
export function assertMswListening(): void {
  if (!listening) throw new Error('msw is not listening in this file: call useMsw() from test/mocks/server.ts at its top');
}
