import { setupServer } from 'msw/node';

// No default answers: every test states the exact answer it needs with server.use(), and any
// request a test did not expect fails it (onUnhandledRequest: 'error').
export const server = setupServer();
