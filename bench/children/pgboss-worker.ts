/**
 * A worker process of the deferred soak (bench/figures/deferred-soak.ts), set up as docs/deferred.md
 * shows, with every default: its own `PgBoss` and pool, `createPgBossQueue({ boss, pool })` and
 * `queue.work(receiver)`. Its handler writes each credit into `soak_ledger` in the inbox's
 * transaction, so the figure counts what was applied, and how often. Argument: `<database url> <name>`.
 */
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { PROVIDER } from '../fixtures/accounts.js';
import { announce } from '../lib/processes.js';

const [databaseUrl, name] = process.argv.slice(2);
if (databaseUrl === undefined || name === undefined) throw new Error('pgboss-worker: expected <database url> <name>');

const { createCallbackReceiver } = await import('payorch/webhooks');
const { createPostgresInbox } = await import('payorch/postgres');
const { createPgBossQueue } = await import('payorch/pg-boss');
const pool = new pg.Pool({ connectionString: databaseUrl });
pool.on('error', () => undefined);
const boss = new PgBoss({ connectionString: databaseUrl });
boss.on('error', (error) => {
  console.error(`pgboss-worker ${name}: pg-boss: ${error.message}`);
});
await boss.start();
const queue = createPgBossQueue({ boss, pool });
const receiver = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool }), enqueue: queue.enqueue, logLevel: 'off' });
receiver.on('deposit.completed', async (callback, { client }) => {
  await client.query('INSERT INTO soak_ledger (tracking_code, worker) VALUES ($1, $2)', [callback.payload.tracking_code, name]);
});
await queue.work(receiver);
announce('', process.pid);
