// Deferred callbacks on Cloudflare Queues (payorch/cloudflare-queues: the queue, its retries, dead
// letters kept in D1) with PostgreSQL through Hyperdrive as the inbox (payorch/postgres): the key and
// the handler's writes through `client` commit in one transaction, exactly once; copies applied at
// once wait on the key's row lock. `pg` needs nodejs_compat. wrangler.toml: the queues of the
// adapter's docs, bindings HYPERDRIVE and DB (d1DeadLettersTableSql()), ORDERS_URL, REPLAY_TOKEN;
// in PostgreSQL, postgresInboxTableSql() and POSTGRES_TABLES_SQL of order-tables.ts.
import pg from 'pg';
import { callbackKeyString, createCallbackReceiver } from 'payorch';
import { createCloudflareQueue } from 'payorch/cloudflare-queues';
import type { QueueBatchLike, QueueProducerLike } from 'payorch/cloudflare-queues';
import type { D1DatabaseLike } from 'payorch/d1';
import { createPostgresInbox } from 'payorch/postgres';
import { creditDeposit, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';

export interface Env {
  readonly CALLBACKS: QueueProducerLike;
  readonly DB: D1DatabaseLike;
  readonly HYPERDRIVE: { readonly connectionString: string };
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
  readonly REPLAY_TOKEN?: string;
  readonly ORDERS_URL: string;
}
type ExecutionContext = { waitUntil(promise: Promise<unknown>): void };

const queueOf = (env: Env) => createCloudflareQueue({ queue: env.CALLBACKS, db: env.DB });
// A receiver over one event's pool: a connection cannot outlive the event that opened it.
function receiverFor(env: Env, pool: pg.Pool) {
  const { enqueue } = queueOf(env);
  // The user and the amount, which the hash does not cover, against your order row, in the inbox's transaction.
  const receiver = createCallbackReceiver({ apiKey: env.PAYORCH_PROVIDER_API_KEY, secretKey: env.PAYORCH_PROVIDER_SECRET_KEY, inbox: createPostgresInbox({ pool }), enqueue, confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback) });
  receiver.on('deposit.completed', async (callback, { client, key }) => {
    // The order service, outside the transaction: at least once; the callback's key makes it one update.
    const told = await fetch(env.ORDERS_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': callbackKeyString(key) },
      body: JSON.stringify({ tracking_code: callback.payload.tracking_code, paid: callback.payload.amount }),
    });
    if (!told.ok) throw new Error(`the order service answered ${told.status}`);
    // Through `client`, the transaction that also inserts the key: a throw rolls both back.
    await creditDeposit(client, callback.payload.tracking_code, callback.payload.amount);
  });
  return receiver;
}

// A pool per event, ended after it: receiving only enqueues; a batch gets a connection per message.
async function withPool<T>(env: Env, context: ExecutionContext, max: number, run: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max });
  try {
    return await run(pool);
  } finally {
    context.waitUntil(pool.end());
  }
}

export default {
  fetch(request: Request, env: Env, context: ExecutionContext): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/dead-letters/replay') return queueOf(env).replayRoute({ token: env.REPLAY_TOKEN })(request);
    if (pathname !== '/webhooks/payorch') return Promise.resolve(new Response(null, { status: 404 }));
    return withPool(env, context, 1, (pool) => receiverFor(env, pool).handle(request));
  },
  queue(batch: QueueBatchLike, env: Env, context: ExecutionContext): Promise<void> {
    return withPool(env, context, batch.messages.length, (pool) => queueOf(env).work(receiverFor(env, pool))(batch));
  },
};
