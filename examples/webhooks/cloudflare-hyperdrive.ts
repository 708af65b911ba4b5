// A callback receiver as a Cloudflare Worker on PostgreSQL through Hyperdrive, with the inbox of
// payorch/postgres: each callback's key and the handlers' changes commit in one PostgreSQL
// transaction, exactly once. `pg` needs Node's APIs here: compatibility_flags = ["nodejs_compat"].
//
// wrangler.toml:
//   compatibility_flags = ["nodejs_compat"]
//   [[hyperdrive]]
//   binding = "HYPERDRIVE"
//   id = "..."
// and, once, in your migrations: postgresInboxTableSql() and your own tables (POSTGRES_TABLES_SQL
// of order-tables.ts: orders, balances and ledger, money in numeric).
import pg from 'pg';
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createPostgresInbox } from 'payorch/postgres';
import type { PostgresInboxContext } from 'payorch/postgres';
import { decimal, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';

export interface Env {
  readonly HYPERDRIVE: { readonly connectionString: string };
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
}

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

type Receiver = CallbackReceiver<PostgresInboxContext<pg.PoolClient>>;

// A receiver over this request's pool: a pool kept across requests hangs the next one on
// Workers, since a connection cannot outlive the request that opened it.
function receiverFor(env: Env, pool: pg.Pool): Receiver {
  const receiver: Receiver = createCallbackReceiver({
    apiKey: env.PAYORCH_PROVIDER_API_KEY,
    secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
    inbox: createPostgresInbox({ pool }),
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row, read in the inbox's transaction (a deposit's at most its ceiling,
    // spec 4.5). `false` answers 409; deferred, the job fails into the dead letters.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
  });
  // `client` is the transaction that also inserts the key: write through it, never through the pool.
  receiver.on('deposit.completed', async (callback, { client }) => {
    const { tracking_code: code, amount } = callback.payload;
    const order = await postgresOrder(client, code);
    if (order === undefined) throw new Error(`confirm found the order of ${code}`);
    // The order's user is credited with the amount paid.
    const user = order.userId;
    const { rowCount } = await client.query('UPDATE balances SET amount = amount + $1 WHERE user_id = $2', [decimal(amount), user]);
    // Throwing rolls back the transaction, key included: the service delivers it again.
    if (rowCount === 0) throw new Error(`no balance for user ${user} yet`);
    await client.query('INSERT INTO ledger (tracking_code, user_id, amount) VALUES ($1, $2, $3)', [code, user, decimal(amount)]);
  });
  return receiver;
}

export default {
  async fetch(request: Request, env: Env, context: ExecutionContext): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname !== '/webhooks/payorch') return new Response(null, { status: 404 });
    // One connection is all a callback uses: the inbox's transaction, which the handlers share.
    const pool = new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max: 1 });
    try {
      return await receiverFor(env, pool).handle(request);
    } finally {
      context.waitUntil(pool.end());
    }
  },
};
