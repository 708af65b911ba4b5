// A callback receiver as a Cloudflare Worker: `wrangler deploy` this file, with the keys as
// secrets (`wrangler secret put PAYORCH_PROVIDER_API_KEY`, and PAYORCH_PROVIDER_SECRET_KEY).
//
// Once-only here is per isolate: the default in-memory inbox is not shared between isolates and
// does not outlive one. For once-only across them, use one of the Worker inboxes beside this
// file: PostgreSQL through Hyperdrive (cloudflare-hyperdrive.ts), D1 (cloudflare-d1.ts) or a
// Durable Object per account (cloudflare-durable-object.ts).
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver, MemoryInboxContext } from 'payorch';

interface Env {
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
}

let receiver: CallbackReceiver<MemoryInboxContext> | undefined;

// Workers get their keys with the first request, not at start-up: the receiver is made then, once per isolate.
function receiverFor(env: Env): CallbackReceiver<MemoryInboxContext> {
  if (receiver !== undefined) return receiver;
  receiver = createCallbackReceiver({ apiKey: env.PAYORCH_PROVIDER_API_KEY, secretKey: env.PAYORCH_PROVIDER_SECRET_KEY });
  receiver.on('deposit.completed', async (callback) => {
    // Your change goes here; throwing answers 500 and the service delivers it again.
    console.log(`deposit ${callback.payload.tracking_code} completed: ${callback.payload.amount}`);
    await Promise.resolve();
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
