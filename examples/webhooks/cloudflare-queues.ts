// Deferred callbacks on Cloudflare Queues: the Worker's `fetch` answers the service as soon as
// the verified callback is on the queue, and its `queue` handler applies each message, with the
// queue's retries and dead-letter queue. `wrangler deploy` this file with, in wrangler.toml:
//
//   [[queues.producers]]
//   binding = "CALLBACKS"
//   queue = "payorch-callbacks"
//
//   [[queues.consumers]]
//   queue = "payorch-callbacks"
//   max_retries = 10
//   retry_delay = 30
//   dead_letter_queue = "payorch-callbacks-dead"
//
// and the keys as secrets (`wrangler secret put PAYORCH_PROVIDER_API_KEY`, and
// PAYORCH_PROVIDER_SECRET_KEY). Once-only across isolates needs an inbox over storage with
// transactions (a Durable Object, or PostgreSQL through Hyperdrive with payorch/postgres): the
// default in-memory inbox lives as long as one isolate.
import { createCallbackReceiver } from 'payorch/webhooks';
import type { CallbackJob, CallbackReceiver, MemoryInboxContext } from 'payorch/webhooks';

// The few members of @cloudflare/workers-types that this file uses.
interface Queue<Body> {
  send(body: Body): Promise<void>;
}
interface Message<Body> {
  readonly id: string;
  readonly body: Body;
  readonly attempts: number;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}
interface MessageBatch<Body> {
  readonly queue: string;
  readonly messages: readonly Message<Body>[];
}

export interface Env {
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
  readonly CALLBACKS: Queue<CallbackJob>;
}

let receiver: CallbackReceiver<MemoryInboxContext> | undefined;

// Workers get their keys and bindings with the first event: the receiver is made then, once per isolate.
function receiverFor(env: Env): CallbackReceiver<MemoryInboxContext> {
  if (receiver !== undefined) return receiver;
  receiver = createCallbackReceiver({
    apiKey: env.PAYORCH_PROVIDER_API_KEY,
    secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
    // A job is a plain JSON object: the queue stores it as it is.
    enqueue: (job) => env.CALLBACKS.send(job),
  });
  receiver.on('deposit.completed', async (callback) => {
    // Your change goes here; throwing retries the message, then sends it to the dead-letter queue.
    console.log(`deposit ${callback.payload.tracking_code} completed: ${callback.payload.amount}`);
    await Promise.resolve();
  });
  return receiver;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return receiverFor(env).handle(request);
  },

  async queue(batch: MessageBatch<CallbackJob>, env: Env): Promise<void> {
    const { apply } = receiverFor(env);
    // One message at a time, each acknowledged or retried on its own.
    for (const message of batch.messages) {
      try {
        await apply(message.body);
        message.ack();
      } catch (error) {
        console.error(`callback job ${message.id} (attempt ${message.attempts}) not applied:`, error instanceof Error ? error.message : error);
        message.retry({ delaySeconds: Math.min(30 * message.attempts, 3600) });
      }
    }
  },
};
