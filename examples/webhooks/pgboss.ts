// Deferred callbacks on pg-boss 12 (payorch/pg-boss). The receiver answers the service once the
// verified callback is a pg-boss job in your PostgreSQL; workers apply it with pg-boss's retries,
// once (the PostgreSQL inbox), on any number of instances. A job whose attempts ran out is a dead
// letter in `payorch_dead_letters`, kept until a person replays or purges it (`queue.deadLetters`).
// What is yours here: the order check and the credit. Here both sides run in one process.
//   npm install pg-boss@12 pg
//   DATABASE_URL=postgres://… PAYORCH_PROVIDER_API_KEY=… PAYORCH_PROVIDER_SECRET_KEY=… npx tsx examples/webhooks/pgboss.ts
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import type { ProviderClient } from 'payorch';
import { createPgBossDeadLetterTable, createPgBossQueue } from 'payorch/pg-boss';
import { createPostgresInboxTable, createPostgresInbox } from 'payorch/postgres';
import { createCallbackReceiver } from 'payorch/webhooks';
import { POSTGRES_TABLES_SQL, creditDeposit, postgresOrder } from './order-tables.js';
import { orderMatches } from './orders.js';
import { keysFromEnvironment, serveNodeHandler } from './receiver.js';

export interface PgBossRecipeOptions {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly connectionString: string;
  /** Reads again the status of the jobs `receiver.reconcile` queues (transfer-sweep.ts). */
  readonly provider?: ProviderClient;
  /** 0 picks a free port. */
  readonly port?: number;
}

export async function start({ apiKey, secretKey, connectionString, provider, port = 0 }: PgBossRecipeOptions) {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', (error) => { console.error('postgres pool:', error.message); });
  const boss = new PgBoss({ connectionString });
  boss.on('error', (error) => { console.error('pg-boss:', error.message); });
  await boss.start();
  // In a real application these belong to its migrations.
  await createPostgresInboxTable({ pool });
  await createPgBossDeadLetterTable({ pool });
  for (const statement of POSTGRES_TABLES_SQL) await pool.query(statement);

  // Ten retries with backoff over about one and a half to three hours, then a dead letter.
  const queue = createPgBossQueue({ boss, pool });
  const receiver = createCallbackReceiver({
    apiKey,
    secretKey,
    inbox: createPostgresInbox({ pool }),
    // Resolves once pg-boss committed the job: only then does the service get its 200.
    enqueue: queue.enqueue,
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row (a deposit's at most its ceiling, spec 4.5), read in the inbox's
    // transaction. A refusal fails the attempt: retried, then kept as a dead letter.
    confirm: async (callback, { client }) => orderMatches(await postgresOrder(client, callback.payload.tracking_code), callback),
  });
  // `client` is the inbox's open transaction: the credit commits with the callback's key. A card
  // payment that succeeded (its callback, or its status read by reconcile) is credited the same way.
  for (const event of ['deposit.completed', 'creditCard.success'] as const) {
    receiver.on(event, (callback, { client }) => creditDeposit(client, callback.payload.tracking_code, callback.payload.amount));
  }
  // Run the workers alone on your worker instances.
  const workers = await queue.work(receiver, provider === undefined ? {} : { provider });
  const server = await serveNodeHandler(receiver.nodeHandler, port, '127.0.0.1');
  const close = async () => {
    await server.close();
    await workers.stop();
    await boss.stop();
    await pool.end();
  };
  return { url: server.url, boss, pool, queue, receiver, close };
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const connectionString = process.env['DATABASE_URL'];
  if (connectionString === undefined || connectionString === '') throw new Error('Set DATABASE_URL to a PostgreSQL database');
  const { url } = await start({ ...keysFromEnvironment(), connectionString, port: Number(process.env['PAYORCH_WEBHOOK_PORT'] ?? 3000) });
  console.log(`Receiving callbacks at ${url}; working the pg-boss queue payorch-callbacks`);
}
