// A callback receiver that credits a balance in PostgreSQL, exactly once, on any number of
// instances: the handler runs inside the transaction that also records the callback's key, so
// the balance change and the key commit together or not at all.
//   DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/postgres.ts
import { createServer } from 'node:http';
import { createCallbackReceiver } from 'payorch';
import { createCallbackInboxTable, createPostgresInbox, pruneCallbackInbox } from 'payorch/postgres';
import pg from 'pg';
import { CALLBACK_PATH, handleOf, keysFromEnvironment } from './receiver.js';
import type { Receiver } from './receiver.js';

export interface PostgresReceiverOptions {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly pool: pg.Pool;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly host?: string;
}

export async function start({ apiKey, secretKey, pool, port = 0, host = '127.0.0.1' }: PostgresReceiverOptions): Promise<Receiver> {
  // In a real application these belong to its migrations.
  await createCallbackInboxTable({ pool });
  await pool.query('CREATE TABLE IF NOT EXISTS balances (user_id text PRIMARY KEY, amount numeric NOT NULL DEFAULT 0)');

  const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createPostgresInbox({ pool }) });
  const credit = async (client: pg.PoolClient, userId: string | undefined, amount: number): Promise<void> => {
    // No user, nothing to credit: throwing answers 500, so that it is looked at and delivered again.
    if (userId === undefined) throw new Error('the callback names no user_id');
    await client.query('INSERT INTO balances (user_id, amount) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET amount = balances.amount + EXCLUDED.amount', [userId, amount]);
  };
  // `client` is the open transaction: use it, not the pool, for the change to commit with the key.
  receiver.on('deposit.completed', (callback, { client }) => credit(client, callback.payload.user_id, callback.payload.amount));
  // Spec 6.3: a rejected or failed withdrawal gives the customer's balance back, once per tracking
  // code: both are end statuses, and each is its own key, so a second one must not refund again.
  const refunds = new Set(['rejected', 'failed']);
  receiver.on('withdrawal', async (callback, { client, appliedStatuses }) => {
    if (!refunds.has(callback.payload.status) || appliedStatuses.some((status) => refunds.has(status))) return;
    await credit(client, callback.payload.user_id, callback.payload.amount);
  });

  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://receiver').pathname !== CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    void receiver.nodeHandler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return handleOf(server);
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const pool = new pg.Pool({ connectionString });
  // An idle connection that breaks is replaced by the pool; without a listener it would end the process.
  pool.on('error', (error) => {
    console.error('postgres pool:', error.message);
  });
  const receiver = await start({ ...keysFromEnvironment(), pool, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  // Keys of records older than 90 days go, and callbacks of such records are refused from then on
  // (422, onError phase 'retention'; docs/webhooks.md, Retention): once a day.
  setInterval(() => {
    pruneCallbackInbox({ pool }).then(
      (deleted) => {
        console.log(`pruned ${deleted} callback keys`);
      },
      (error: unknown) => {
        console.error('prune:', error);
      },
    );
  }, 86_400_000).unref();
  console.log(`Receiving callbacks at ${receiver.url}`);
}
