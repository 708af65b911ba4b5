// The Worker the payorch/cloudflare-queues tests run in workerd: this file is its main module,
// bundled from dist/ as wrangler bundles it. It receives callbacks onto the queue, applies them
// with a D1 inbox, and opens the dead letters and D1 to the test over HTTP. The test reads D1
// through it rather than through miniflare's proxy, whose calls wait synchronously: while one
// waits, the test reads nothing of what workerd prints, and a busy queue then fills the pipe.
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createD1Inbox } from 'payorch/d1';
import type { D1DatabaseLike, D1InboxContext } from 'payorch/d1';
import { createCloudflareQueue } from 'payorch/cloudflare-queues';
import type { CloudflareQueue, ListDeadLettersOptions, QueueBatchLike, QueueProducerLike, ReplayDeadLettersOptions } from 'payorch/cloudflare-queues';

interface Env {
  readonly CALLBACKS: QueueProducerLike;
  readonly DB: D1DatabaseLike;
  readonly API_KEY: string;
  readonly SECRET_KEY: string;
  readonly REPLAY_TOKEN: string;
}

let made: { readonly queue: CloudflareQueue; readonly receiver: CallbackReceiver<D1InboxContext> } | undefined;

// The producer as the adapter sees it, with each sendBatch written down: how many messages, and
// their bytes as Queues counts them (the JSON body and at most 100 bytes of its own).
function recorded(env: Env): QueueProducerLike {
  return {
    send: (body, options) => env.CALLBACKS.send(body, options),
    async sendBatch(messages) {
      const list = [...messages];
      const bytes = list.reduce((total, message) => total + new TextEncoder().encode(JSON.stringify(message.body)).length + 100, 0);
      const sent = await env.CALLBACKS.sendBatch(list);
      await env.DB.prepare('INSERT INTO sent_batches (messages, bytes) VALUES (?, ?)').bind(list.length, bytes).run();
      return sent;
    },
  };
}

function setup(env: Env) {
  if (made !== undefined) return made;
  const queue = createCloudflareQueue({ queue: recorded(env), db: env.DB, retryDelaySeconds: 0, maxRetryDelaySeconds: 0 });
  const receiver = createCallbackReceiver({ apiKey: env.API_KEY, secretKey: env.SECRET_KEY, inbox: createD1Inbox({ db: env.DB }), enqueue: queue.enqueue, logLevel: 'off' });
  receiver.on('deposit.completed', async (callback, { db, statements }) => {
    const code = callback.payload.tracking_code;
    // A test makes a code fail its next `times` attempts; the count is written at once, outside the batch.
    const failing = await db.prepare('UPDATE failing SET times = times - 1 WHERE tracking_code = ? AND times > 0 RETURNING times').bind(code).first();
    if (failing !== null) throw new Error(`told to fail ${code}`);
    statements.push(db.prepare('INSERT INTO credits (tracking_code, amount) VALUES (?, ?)').bind(code, callback.payload.amount));
  });
  made = { queue, receiver };
  return made;
}

// The dead letters' calls, as the test names them; errors come back by name and message.
async function deadLetters(queue: CloudflareQueue, request: Request): Promise<Response> {
  const { op, ...args } = (await request.json()) as { op: string; id?: string; before?: number } & Record<string, unknown>;
  try {
    switch (op) {
      case 'list':
        return Response.json(await queue.deadLetters.list(args as ListDeadLettersOptions));
      case 'get':
        return Response.json((await queue.deadLetters.get(args.id as string)) ?? null);
      case 'replay':
        return Response.json(await queue.deadLetters.replay(args as ReplayDeadLettersOptions));
      case 'purge':
        return Response.json(await queue.deadLetters.purge(args.before === undefined ? (args as { ids: string[] }) : { before: new Date(args.before) }));
      default:
        return Response.json({ error: { name: 'TestError', message: `no op ${op}` } }, { status: 400 });
    }
  } catch (error) {
    return Response.json({ error: { name: (error as Error).name, message: (error as Error).message } }, { status: 500 });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { queue, receiver } = setup(env);
    const { pathname } = new URL(request.url);
    if (pathname === '/webhooks') return receiver.handle(request);
    if (pathname === '/dead-letters/replay') return queue.replayRoute({ token: env.REPLAY_TOKEN })(request);
    if (pathname === '/dead-letters') return deadLetters(queue, request);
    if (pathname === '/sql') {
      const statements = (await request.json()) as [string, ...unknown[]][];
      const results = await env.DB.batch(statements.map(([sql, ...values]) => env.DB.prepare(sql).bind(...values)));
      return Response.json(results.map((result) => (result as { results?: unknown[] }).results ?? []));
    }
    // A message written into the queue by someone else than the receiver: a job changed on the way.
    if (pathname === '/send') {
      await env.CALLBACKS.send((await request.json()) as never, { contentType: 'json' });
      return new Response(null, { status: 204 });
    }
    return new Response(null, { status: 404 });
  },

  queue(batch: QueueBatchLike, env: Env): Promise<void> {
    const { queue, receiver } = setup(env);
    return queue.work(receiver)(batch);
  },
};
