// What the receiver examples share: their options, their handle, and running one from the
// command line: `npx tsx examples/webhooks/express.ts` with the keys in the environment.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { AppliedCallback } from 'payorch';
import { memoryOrders } from './orders.js';
import type { OrderLookup } from './orders.js';

/** The path the service POSTs to: set `<url>` as callback_url, withdrawal_callback_url or credit_card_callback_url. */
export const CALLBACK_PATH = '/webhooks/payorch';

/** Your application's side: what to do with a verified callback, once per tracking_code + status. */
export type OnCallback = (callback: AppliedCallback) => void | Promise<void>;

export interface ReceiverOptions {
  /** The account's API key: the provider's, or the dealer's for dealer card callbacks. */
  readonly apiKey: string;
  readonly secretKey: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** The address to listen on; `0.0.0.0` to accept callbacks from outside this machine. */
  readonly host?: string;
  /** Your order row of a tracking code: `confirmOrder(orderOf)` checks each callback against it before `onCallback`. */
  readonly orderOf: OrderLookup;
  /** Called once per tracking_code + status with each confirmed callback; throw to have it delivered again. */
  readonly onCallback?: OnCallback;
}

export interface Receiver {
  /** The full callback URL, path included. */
  readonly url: string;
  close(): Promise<void>;
}

export type StartReceiver = (options: ReceiverOptions) => Promise<Receiver>;

/** The default action of a receiver run from the command line: say what arrived, with the amount paid. */
export function logCallback(callback: AppliedCallback): void {
  const { tracking_code: trackingCode, status, amount } = callback.payload;
  console.log(`${callback.kind} ${trackingCode} ${status} amount=${String(amount)}`);
}

/** Settings with their defaults, for the receivers to destructure. */
export function settings(options: ReceiverOptions): Required<ReceiverOptions> {
  return { port: 0, host: '127.0.0.1', onCallback: logCallback, ...options };
}

/** The handle of a listening node:http server (Express and Hono run on one too). */
export function handleOf(server: Server): Receiver {
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}${CALLBACK_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      }),
  };
}

/** Serves a receiver's `nodeHandler` at CALLBACK_PATH on node:http (404 elsewhere); resolves once it listens. */
export async function serveNodeHandler(nodeHandler: (request: IncomingMessage, response: ServerResponse) => Promise<void>, port: number, host: string): Promise<Receiver> {
  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://receiver').pathname !== CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    void nodeHandler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return handleOf(server);
}

/** The keys from the environment; refuses to start without them rather than answer 401 to everything. */
export function keysFromEnvironment(): { apiKey: string; secretKey: string } {
  const apiKey = process.env['PAYORCH_PROVIDER_API_KEY'];
  const secretKey = process.env['PAYORCH_PROVIDER_SECRET_KEY'];
  if (apiKey === undefined || apiKey === '' || secretKey === undefined || secretKey === '') {
    throw new Error('Set PAYORCH_PROVIDER_API_KEY and PAYORCH_PROVIDER_SECRET_KEY (the dealer keys for dealer card callbacks)');
  }
  return { apiKey, secretKey };
}

/** Starts the receiver when its file is the script being run, with the settings from the environment. */
export async function runWhenMain(moduleUrl: string, start: StartReceiver): Promise<void> {
  const script = process.argv[1];
  if (script === undefined || pathToFileURL(script).href !== moduleUrl) return;
  // An empty order table: every callback is refused (409) until orderOf reads yours.
  const { orderOf } = memoryOrders();
  const receiver = await start({
    ...keysFromEnvironment(),
    orderOf,
    port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000),
    host: process.env['PAYORCH_WEBHOOK_HOST'] ?? '127.0.0.1',
  });
  console.log(`Receiving callbacks at ${receiver.url}; each is refused (409) unless orderOf finds its tracking code in your orders`);
}
