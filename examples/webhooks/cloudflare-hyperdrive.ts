// A callback receiver as a Cloudflare Worker on PostgreSQL through Hyperdrive, with the inbox of
// payorch/postgres: each callback's key and the handlers' changes commit in one PostgreSQL
// transaction, exactly once. `pg` needs Node's APIs here: compatibility_flags = ["nodejs_compat"].
//
// wrangler.toml:
//   compatibility_flags = ["nodejs_compat"]
//   [[hyperdrive]]
//   binding = "HYPERDRIVE"
//   id = "..."
// and, once, in your migrations: callbackInboxTableSql() and your own tables.
import pg from 'pg';
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createPostgresInbox } from 'payorch/postgres';
import type { PostgresInboxContext } from 'payorch/postgres';

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
  });
  // `client` is the transaction that also inserts the key: write through it, never through the pool.
  receiver.on('deposit.completed', async (callback, { client }) => {
    const { tracking_code: code, user_id: user, amount } = callback.payload;
    const { rowCount } = await client.query('UPDATE balances SET amount = amount + $1 WHERE user_id = $2', [amount, user]);
    // Throwing rolls back the transaction, key included: the service delivers it again.
    if (rowCount === 0) throw new Error(`no balance for user ${user} yet`);
    await client.query('INSERT INTO ledger (tracking_code, user_id, amount) VALUES ($1, $2, $3)', [code, user, amount]);
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
