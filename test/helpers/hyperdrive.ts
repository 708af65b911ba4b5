import { Miniflare } from './miniflare.js';
import type { MiniflareOptions } from './miniflare.js';
import { builtinModules } from 'node:module';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { inject } from 'vitest';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { postgresInboxTableSql } from '../../src/inboxes/postgres/index.js';
import { POSTGRES_TABLES_SQL } from '../../examples/webhooks/order-tables.js';
import { bundleWorker, bundleWorkerFile } from './worker-bundle.js';
import { d1Beside, d1Of } from './d1-over-http.js';
import { PROVIDER } from './wire.js';

/** The PostgreSQL side of a Hyperdrive example test: a database of its own with the example's tables. */
export interface LedgerDatabase {
  /** Reaches the database directly, to read what the Worker wrote. */
  readonly pool: pg.Pool;
  /** The URL miniflare's Hyperdrive binding connects to. */
  readonly hyperdriveUrl: string;
  /** The user's ledger rows, with the balance beside each, by tracking code. */
  ledgerOf(user: string): Promise<unknown[]>;
  /** Saves the merchant's order row of a deposit, as when it was started: what `confirm` reads. */
  order(trackingCode: string, user: string, amount: number, maxAmount?: number): Promise<void>;
  /** Every ledger row and balance, to compare before and after a refused callback. */
  moneyRows(): Promise<unknown[]>;
  /** The statuses the inbox keeps for a tracking code. */
  keysOf(trackingCode: string): Promise<unknown[]>;
  /** Ends the pool and drops the database. */
  drop(): Promise<void>;
}

/**
 * Creates `name` afresh with the inbox, `balances` and `ledger` tables the Cloudflare examples
 * write: a database of its own, because other test files use the same table names.
 */
export async function ledgerDatabase(name: string): Promise<LedgerDatabase> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: inject('postgresUrl') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`DROP DATABASE IF EXISTS ${name}`);
  await admin(`CREATE DATABASE ${name}`);
  const database = new URL(inject('postgresUrl'));
  database.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: database.href });
  await pool.query(postgresInboxTableSql());
  for (const statement of POSTGRES_TABLES_SQL) await pool.query(statement);
  // miniflare wants a password in the URL, even under trust authentication.
  if (database.password === '') database.password = 'unused';
  return {
    pool,
    hyperdriveUrl: database.href,
    async ledgerOf(user) {
      const { rows } = await pool.query<Record<string, unknown>>('SELECT l.tracking_code, l.amount::float AS amount, b.amount::float AS balance FROM ledger l JOIN balances b USING (user_id) WHERE user_id = $1 ORDER BY l.tracking_code', [user]);
      return rows;
    },
    async order(trackingCode, user, amount, maxAmount = amount * 2) {
      await pool.query("INSERT INTO orders (tracking_code, kind, user_id, amount, max_amount) VALUES ($1, 'deposit', $2, $3, $4)", [trackingCode, user, amount, maxAmount]);
    },
    async moneyRows() {
      return [(await pool.query<Record<string, unknown>>('SELECT * FROM ledger ORDER BY tracking_code')).rows, (await pool.query<Record<string, unknown>>('SELECT * FROM balances ORDER BY user_id')).rows];
    },
    async keysOf(trackingCode) {
      return (await pool.query<Record<string, unknown>>('SELECT unnest(statuses) AS status FROM payorch_callback_inbox WHERE tracking_code = $1', [trackingCode])).rows;
    },
    async drop() {
      await pool.end();
      await admin(`DROP DATABASE IF EXISTS ${name}`);
    },
  };
}

/** A Worker that uses `pg`, in workerd with nodejs_compat and a Hyperdrive binding to `database`. */
export interface PgWorker {
  /** Where the example receives callbacks. */
  readonly url: string;
  /** Everything workerd printed so far: the examples' logs, and any complaint of an ending pool. */
  printed(): string;
  /** The Worker's D1 database `DB`, when it has one (the dead letters of payorch/cloudflare-queues). */
  db(): Promise<D1DatabaseLike>;
  dispose(): Promise<void>;
}

/**
 * Bundles the recipe `file` (or a module's `source`, resolved from test/) as the Worker's main
 * module, as wrangler does (`pg` bundled, Node's built-ins left to workerd's createRequire), and
 * starts it with the provider keys, `bindings` and `options` added.
 */
export async function startPgWorker(
  file: string | { readonly source: string },
  database: LedgerDatabase,
  options: { readonly bindings?: Readonly<Record<string, string>>; readonly queueProducers?: MiniflareOptions['queueProducers']; readonly queueConsumers?: MiniflareOptions['queueConsumers']; readonly d1?: boolean } = {},
): Promise<PgWorker> {
  const bundling = {
    external: ['node:*', ...builtinModules],
    banner: "import { createRequire } from 'node:module'; const require = createRequire('/');",
  };
  const script = typeof file === 'string' ? await bundleWorkerFile(file, bundling) : await bundleWorker(file.source, bundling);
  let printed = '';
  const miniflare = new Miniflare({
    workers: [
      {
        modules: true,
        script,
        compatibilityDate: '2025-09-01',
        compatibilityFlags: ['nodejs_compat'],
        hyperdrives: { HYPERDRIVE: database.hyperdriveUrl },
        ...(options.queueProducers === undefined ? {} : { queueProducers: options.queueProducers }),
        ...(options.queueConsumers === undefined ? {} : { queueConsumers: options.queueConsumers }),
        ...(options.d1 === true ? { d1Databases: { DB: 'dead-letters' } } : {}),
        bindings: { PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey, PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey, ...options.bindings },
      },
      // The test reads the Worker's D1 over HTTP (test/helpers/d1-over-http.ts).
      ...(options.d1 === true ? [d1Beside('dead-letters')] : []),
    ],
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    },
  });
  const url = new URL('/webhooks/payorch', await miniflare.ready).href;
  return { url, printed: () => printed, db: () => Promise.resolve(d1Of(miniflare)), dispose: () => miniflare.dispose() };
}
