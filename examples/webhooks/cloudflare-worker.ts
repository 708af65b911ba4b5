// A callback receiver as a Cloudflare Worker: `wrangler deploy` this file, with the keys as
// secrets (`wrangler secret put PAYORCH_PROVIDER_API_KEY`, and PAYORCH_PROVIDER_SECRET_KEY) and
// your order rows in a KV namespace bound as ORDERS (written when startDeposit or startWithdrawal
// answered, keyed by the tracking code).
//
// Once-only here is per isolate: the default in-memory inbox is not shared between isolates and
// does not outlive one. For once-only across them, use one of the Worker inboxes beside this
// file: PostgreSQL through Hyperdrive (cloudflare-hyperdrive.ts), D1 (cloudflare-d1.ts) or a
// Durable Object per account (cloudflare-durable-object.ts).
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver, MemoryInboxContext } from 'payorch';
import { confirmOrder } from './orders.js';
import type { Order } from './orders.js';

/** The part of a KV namespace binding used here. */
interface OrderStore {
  get(key: string, type: 'json'): Promise<unknown>;
}

interface Env {
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
  readonly ORDERS: OrderStore;
}

let receiver: CallbackReceiver<MemoryInboxContext> | undefined;

// Workers get their keys with the first request, not at start-up: the receiver is made then, once per isolate.
function receiverFor(env: Env): CallbackReceiver<MemoryInboxContext> {
  if (receiver !== undefined) return receiver;
  const orderOf = async (trackingCode: string): Promise<Order | undefined> => ((await env.ORDERS.get(trackingCode, 'json')) as Order | null) ?? undefined;
  receiver = createCallbackReceiver({
    apiKey: env.PAYORCH_PROVIDER_API_KEY,
    secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
    // The hash does not cover the user or the amount: each callback is checked against your order first (409 if not).
    confirm: confirmOrder(orderOf),
  });
  receiver.on('deposit.completed', async (callback) => {
    // Your change goes here, for your order's user, with the amount paid (the customer may have
    // changed it on the payment page, spec 4.5); throwing answers 500 and the service delivers it again.
    const order = await orderOf(callback.payload.tracking_code);
    console.log(`deposit ${callback.payload.tracking_code} completed: credit ${order?.userId ?? '?'} with ${callback.payload.amount}`);
  });
  receiver.on('*', (callback) => {
    console.log(`${callback.kind} ${callback.payload.tracking_code} ${callback.payload.status}`);
  });
  return receiver;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname !== '/webhooks/payorch') return Promise.resolve(new Response(null, { status: 404 }));
    return receiverFor(env).handle(request);
  },
};
