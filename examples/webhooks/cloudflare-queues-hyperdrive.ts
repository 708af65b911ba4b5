// Deferred callbacks on Cloudflare Queues with PostgreSQL through Hyperdrive as the inbox
// (payorch/postgres): the Worker's `fetch` answers the service as soon as the verified callback is
// on the queue; its `queue` handler applies each message, and the callback's key and the handler's
// writes through `client` commit in one PostgreSQL transaction, exactly once. Copies applied at
// the same time wait on the key's row lock, so a handler never runs twice at once for one callback.
// `pg` needs Node's APIs: compatibility_flags = ["nodejs_compat"].
//
// wrangler.toml:
//   compatibility_flags = ["nodejs_compat"]
//   [[hyperdrive]]
//   binding = "HYPERDRIVE"
//   id = "..."
//   [[queues.producers]]
//   binding = "CALLBACKS"
//   queue = "payorch-callbacks"
//   [[queues.consumers]]
//   queue = "payorch-callbacks"
//   max_retries = 10
//   retry_delay = 60
//   dead_letter_queue = "payorch-callbacks-dead"
//   [vars]
//   ORDERS_URL = "https://orders.example/paid"
// and, once, in your migrations: postgresInboxTableSql() and your own tables (POSTGRES_TABLES_SQL
// of order-tables.ts: orders, balances and ledger, money in numeric). Keep and replay the
// dead letters as cloudflare-queues.ts does (a table of this database serves as well as D1).
import pg from 'pg';
import { callbackKeyString, createCallbackReceiver } from 'payorch';
import type { CallbackJob, CallbackReceiver } from 'payorch';
import { createPostgresInbox } from 'payorch/postgres';
import type { PostgresInboxContext } from 'payorch/postgres';
import { decimal, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';

// The few members of @cloudflare/workers-types that this file uses; the real types fit them.
interface Queue<Body> {
  send(body: Body): Promise<void>;
}
interface Message<Body> {
  readonly id: string;
  readonly body: Body;
  readonly attempts: number;
  ack(): void;
  retry(): void;
}
interface MessageBatch<Body> {
  readonly queue: string;
  readonly messages: readonly Message<Body>[];
}
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

export interface Env {
  readonly CALLBACKS: Queue<CallbackJob>;
  readonly HYPERDRIVE: { readonly connectionString: string };
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
  // Where the order service is told of a deposit: outside PostgreSQL, so at least once.
  readonly ORDERS_URL: string;
}

type Receiver = CallbackReceiver<PostgresInboxContext<pg.PoolClient>>;

// A receiver over one event's pool: a connection cannot outlive the event that opened it.
function receiverFor(env: Env, pool: pg.Pool): Receiver {
  const receiver: Receiver = createCallbackReceiver({
    apiKey: env.PAYORCH_PROVIDER_API_KEY,
    secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
    inbox: createPostgresInbox({ pool }),
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row, read in the inbox's transaction (a deposit's at most its ceiling,
    // spec 4.5). `false` answers 409; deferred, the job fails into the dead letters.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
    // The 200 waits for this: a job is a plain JSON object, and the queue stores it as it is.
    enqueue: (job) => env.CALLBACKS.send(job),
  });
  // `client` is the transaction that also inserts the key: write through it, never through the pool.
  receiver.on('deposit.completed', async (callback, { client, key }) => {
    const { tracking_code: code, amount } = callback.payload;
    const order = await postgresOrder(client, code);
    if (order === undefined) throw new Error(`confirm found the order of ${code}`);
    // The order's user is credited with the amount paid.
    const user = order.userId;
    const { rowCount } = await client.query('UPDATE balances SET amount = amount + $1 WHERE user_id = $2', [decimal(amount), user]);
    // Throwing rolls back the transaction, key included: the queue delivers the message again.
    if (rowCount === 0) throw new Error(`no balance for user ${user} yet`);
    // Not in the transaction: it runs again if the callback is applied again after a failure,
    // and the callback's key makes that one order update at the order service.
    const told = await fetch(env.ORDERS_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': callbackKeyString(key) },
      body: JSON.stringify({ tracking_code: code, paid: amount }),
    });
    if (!told.ok) throw new Error(`the order service answered ${told.status}`);
    await client.query('INSERT INTO ledger (tracking_code, user_id, amount) VALUES ($1, $2, $3)', [code, user, decimal(amount)]);
  });
  return receiver;
}

export default {
  async fetch(request: Request, env: Env, context: ExecutionContext): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname !== '/webhooks/payorch') return new Response(null, { status: 404 });
    // Receiving only enqueues: this pool never opens a connection.
    const pool = new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max: 1 });
    try {
      return await receiverFor(env, pool).handle(request);
    } finally {
      context.waitUntil(pool.end());
    }
  },

  async queue(batch: MessageBatch<CallbackJob>, env: Env, context: ExecutionContext): Promise<void> {
    // A pool for this batch, with a connection for each message applied at the same time.
    const pool = new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max: batch.messages.length });
    const { apply } = receiverFor(env, pool);
    try {
      await Promise.all(
        batch.messages.map(async (message) => {
          try {
            await apply(message.body);
            message.ack();
          } catch (error) {
            console.error(`callback job ${message.id} (attempt ${message.attempts}) not applied:`, error instanceof Error ? error.message : error);
            // The consumer's retry_delay; past max_retries the message goes to the dead-letter queue.
            message.retry();
          }
        }),
      );
    } finally {
      context.waitUntil(pool.end());
    }
  },
};
