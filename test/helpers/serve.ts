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
