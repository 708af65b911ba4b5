// A callback receiver that credits a balance in PostgreSQL, exactly once, on any number of
// instances, after checking each callback against your order row: confirm and the handler run
// inside the transaction that also records the callback's key, so the balance change and the key
// commit together or not at all.
//   DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/postgres.ts
import { createCallbackReceiver } from 'payorch';
import { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } from 'payorch/postgres';
import pg from 'pg';
import { POSTGRES_TABLES_SQL, creditDeposit, decimal, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';
import { keysFromEnvironment, serveNodeHandler } from './receiver.js';
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
  // In a real application these belong to its migrations. `orders` holds a row per payment you
  // started, saved with the tracking code that startDeposit or startWithdrawal answered.
  await createPostgresInboxTable({ pool });
  for (const statement of POSTGRES_TABLES_SQL) await pool.query(statement);

  const receiver = createCallbackReceiver({
    apiKey,
    secretKey,
    inbox: createPostgresInbox({ pool }),
    // The hash covers tracking_code, status and timestamp only: the user and the amount (a
    // withdrawal's as asked, a deposit's at most its ceiling, spec 4.5) must be those of your
    // order, read in the same transaction. `false` answers 409.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
  });
  const credit = async (client: pg.PoolClient, userId: string, amount: number): Promise<void> => {
    await client.query('INSERT INTO balances (user_id, amount) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET amount = balances.amount + EXCLUDED.amount', [userId, decimal(amount)]);
  };
  // `client` is the open transaction: use it, not the pool, for the change to commit with the key.
  // The amount paid is recorded with the order and credited to the order's user.
  receiver.on('deposit.completed', (callback, { client }) => creditDeposit(client, callback.payload.tracking_code, callback.payload.amount));
  // Spec 6.3: a rejected or failed withdrawal gives the customer's balance back; a canceled one
  // ended unpaid too (docs/receiving-callbacks.md). Once per tracking code: each status is its own key, so a
  // second one must not refund again, and one reported completed before is left to a person.
  const unpaid = new Set(['rejected', 'failed', 'canceled']);
  receiver.on('withdrawal', async (callback, { client, appliedStatuses }) => {
    const { tracking_code: trackingCode, status } = callback.payload;
    if (!unpaid.has(status) || appliedStatuses.some((applied) => unpaid.has(applied))) return;
    if (appliedStatuses.includes('completed')) {
      console.warn(`withdrawal ${trackingCode} was completed, now ${status}: not refunded automatically`);
      return;
    }
    const order = await postgresOrder(client, trackingCode);
    if (order === undefined) throw new Error(`confirm found the order of ${trackingCode}`);
    await client.query('INSERT INTO ledger (tracking_code, user_id, amount) VALUES ($1, $2, $3)', [trackingCode, order.userId, decimal(order.amount)]);
    await credit(client, order.userId, order.amount);
  });

  return serveNodeHandler(receiver.nodeHandler, port, host);
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
  // (422, onError phase 'retention'; docs/inboxes.md, Retention): once a day.
  setInterval(() => {
    prunePostgresInbox({ pool }).then(
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
