import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, vi } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import type { ProviderClientOptions } from '../../src/index.js';
import { PROVIDER } from './wire.js';

/** A request exactly as a real socket delivered it. */
export interface SeenRequest {
  readonly method: string;
  /** Path and query, for example `/api/provider/welcome`. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** How the test server answers the n-th request (1-based) it received in full. */
export type Behaviour = (request: IncomingMessage, response: ServerResponse, n: number, seen: SeenRequest) => unknown;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Every request the server read to its end, in order. */
  readonly seen: SeenRequest[];
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

const open: Server[] = [];

/**
 * Starts a node:http server on 127.0.0.1 and a free port. Every request is read to its end,
 * recorded, then handed to `behave`. Closed after each test.
 */
export async function startServer(behave: Behaviour, configure?: (server: Server) => void): Promise<LoopbackServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: SeenRequest = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      void Promise.resolve(behave(request, response, seen.length, entry)).catch(() => request.socket.destroy());
    });
  });
  configure?.(server);
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  server.on('connection', (socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    get connections() {
      return state.connections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}

export { freePort, refusedPort } from './free-port.js';

/** Answers with JSON and the given status. */
export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): ServerResponse {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  return response.end(text);
}

/**
 * Closes every server startServer() opened after each test, its open connections too, so that
 * no test sees another's server or keeps the file's worker alive.
 */
export function closeLoopbackServers(): void {
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => { resolve(); });
    })));
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });
}

/** Makes every backoff wait zero (full jitter multiplies by Math.random()). */
export function noBackoff(): void {
  vi.spyOn(Math, 'random').mockReturnValue(0);
}

/** A provider client for a loopback server, with the test credentials. */
export function providerFor(server: { url: string }, options: Partial<ProviderClientOptions> = {}): ProviderClient {
  return new ProviderClient({ baseUrl: server.url, ...PROVIDER, ...options });
}

export const WELCOME = { success: true, message: 'Welcome, Acme', provider: { id: 1, name: 'Acme', is_active: true }, timestamp: '2026-11-22 10:00:00' };
export { CUSTOMER } from './wire.js';
export const DEPOSIT = {
  success: true,
  message: 'Deposit started',
  data: { tracking_code: 'MAN-a8Xk29Qp-1763812000', payment_url: 'https://pay.example/track/MAN-a8Xk29Qp-1763812000', amount: 250, status: 'showing' },
};
export const CARD_PAYMENT = {
  success: true,
  data: { tracking_code: 'CC-k3J9x-1763812000', payment_url: 'https://pay.example/cc/CC-k3J9x', order_id: 'ORD-1', amount: 150, currency: 'TRY' },
};
export const CARD = { username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 };
