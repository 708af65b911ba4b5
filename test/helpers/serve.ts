import { serve } from '@hono/node-server';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on 127.0.0.1 and a free port. */
export interface Served {
  /** `http://127.0.0.1:<port>/webhooks/payorch` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

function served(server: Server): Served {
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/payorch`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      }),
  };
}

/** Serves a node:http handler (`receiver.nodeHandler`, an Express app) on a real socket. */
export async function serveNode(handler: (request: IncomingMessage, response: ServerResponse) => unknown): Promise<Served> {
  const server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return served(server);
}

/** Serves a Fetch API handler (`receiver.handle`, a route module's POST) on a real socket through @hono/node-server. */
export async function serveFetch(handler: (request: Request) => Response | Promise<Response>): Promise<Served> {
  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, () => { resolve(listening as Server); });
  });
  return served(server);
}

/** A signed delivery as fetch sends it. */
export interface Delivery {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** POSTs a delivery and returns the status and the parsed JSON answer. */
export async function deliver(url: string, { headers, body }: Delivery): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** A promise with its resolve, to hold a handler until the test lets it go. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** A receiver with the guide's refund-once withdrawal handler, served on a real socket, counting deliveries in flight. */
export interface RefundOnceReceiver extends Served {
  /** Each withdrawal handled, in the order applied, with what was applied before it. */
  readonly seen: readonly { readonly status: string; readonly trackingCode: string; readonly appliedStatuses: readonly string[] }[];
  /** How many refunds the handler made. */
  refunds(): number;
  /** The most deliveries the server held at once. */
  mostInFlight(): number;
}

/**
 * Serves `receiver` with the guide's handler: refund when no other status was applied before.
 * Each handler waits 100 ms, so a second delivery of the same moment arrives while the first is applied.
 */
export async function serveRefundOnce(receiver: {
  on(event: 'withdrawal', handler: (callback: { readonly payload: { readonly status: string; readonly tracking_code: string } }, context: { readonly appliedStatuses: readonly string[] }) => Promise<void>): unknown;
  nodeHandler(request: IncomingMessage, response: ServerResponse): unknown;
}): Promise<RefundOnceReceiver> {
  const seen: { status: string; trackingCode: string; appliedStatuses: readonly string[] }[] = [];
  let refunds = 0;
  receiver.on('withdrawal', async (callback, { appliedStatuses }) => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen.push({ status: callback.payload.status, trackingCode: callback.payload.tracking_code, appliedStatuses });
    if (appliedStatuses.length === 0) refunds += 1;
  });
  let inFlight = 0;
  let mostInFlight = 0;
  const server = await serveNode((request, response) => {
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    response.on('close', () => { inFlight -= 1; });
    return receiver.nodeHandler(request, response);
  });
  return { ...server, seen, refunds: () => refunds, mostInFlight: () => mostInFlight };
}
