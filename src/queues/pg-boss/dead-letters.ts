// The dead letters of one pg-boss queue, in a table of the merchant's PostgreSQL: kept by the
// worker, listed, replayed and purged by a person. No pg-boss retention reaches the table.
import { checkOptions, declareOptions } from '../../core/option-checks.js';
import { DEAD_LETTER_PAGE_LIMIT, DEFAULT_DEAD_LETTER_PAGE, checkDeadLetterId, checkPurgeOptions, checkReplayOptions, deadLetterOf, resealDeadLetter } from '../dead-letters.js';
import type { DeadLetter, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions, ReplayDeadLettersOptions } from '../dead-letters.js';
import type { PostgresClient, PostgresPool } from '../../inboxes/postgres/table.js';
import type { CallbackJob } from '../../webhooks/job.js';
import type { PgBossDatabase } from './boss.js';
import { checkPostgresTable } from '../../inboxes/postgres/versions.js';
import { PGBOSS_DEAD_LETTER_TABLE } from './table.js';

/** How many dead letters one replay sends at most: one transaction of PostgreSQL's, kept short. */
export const PGBOSS_REPLAY_BATCH = 100;

export const LIST_OPTIONS = declareOptions<ListDeadLettersOptions>()([
  DEAD_LETTER_PAGE_LIMIT,
  { name: 'cursor', rule: { type: 'text', maxLength: 19, pattern: /^\d+$/, allowed: 'the cursor of the page before, as list returned it' } },
]);

/** What the dead letters of one queue work with. */
export interface DeadLetterStore {
  readonly pool: PostgresPool;
  /** The table's name with its schema, once resolved. */
  readonly table: (client: PostgresClient) => Promise<string>;
  /** The pg-boss queue the dead letters died on, and are replayed to. */
  readonly queue: string;
  /** Sends a job to `queue` inside the transaction of `db` (pg-boss's `send` with its `db` option). */
  readonly send: (job: unknown, db: PgBossDatabase) => Promise<unknown>;
}

/** A dead job as the worker keeps it. */
export interface DeadJob {
  /** The pg-boss id of the job that died. */
  readonly id: string;
  readonly job: unknown;
  readonly attempts: number;
  readonly lastError: string;
}

interface Row {
  readonly seq: string;
  readonly id: string;
  readonly job: unknown;
  readonly attempts: number;
  readonly last_error: string;
  readonly dead_at: Date;
}

const shown = (row: Row): DeadLetter => deadLetterOf(row.job, { id: row.id, attempts: row.attempts, lastError: row.last_error, deadAt: new Date(row.dead_at) });

// What list reads of a job: the fields a dead letter shows, never the payload's names or IBANs.
const LISTED_JOB = `jsonb_build_object('kind', job->'kind', 'merchantId', job->'merchantId', 'receivedAt', job->'receivedAt',
  'payload', jsonb_build_object('tracking_code', job->'payload'->'tracking_code', 'transfer_id', job->'payload'->'transfer_id', 'status', job->'payload'->'status')) AS job`;

// The stores whose table was found at the current version: checked on first use, once.
const checked = new WeakSet<DeadLetterStore>();

async function withClient<T>(store: DeadLetterStore, use: (client: PostgresClient, table: string) => Promise<T>): Promise<T> {
  const client = await store.pool.connect();
  try {
    const table = await store.table(client);
    if (!checked.has(store)) {
      await checkPostgresTable(client, PGBOSS_DEAD_LETTER_TABLE, table, 'createPgBossDeadLetterTable, or pgBossDeadLetterTableSql() in your migrations, before starting the workers');
      checked.add(store);
    }
    return await use(client, table);
  } finally {
    client.release();
  }
}

const rowsOf = (result: { readonly rows?: readonly unknown[] | undefined }): Row[] => (result.rows ?? []) as Row[];

/**
 * Keeps a dead job, once: a second keep of the same pg-boss id (the worker kept it, then died
 * before pg-boss heard, and pg-boss's dead-letter queue brought it again) changes nothing.
 * @returns the dead letter kept now, or `undefined` when it was kept before
 */
export async function keepDeadJob(store: DeadLetterStore, dead: DeadJob): Promise<DeadLetter | undefined> {
  return withClient(store, async (client, table) => {
    const result = await client.query(
      `INSERT INTO ${table} (id, queue, job, attempts, last_error) VALUES ($1, $2, $3::jsonb, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING seq::text, id, job, attempts, last_error, dead_at`,
      [dead.id, store.queue, JSON.stringify(dead.job), dead.attempts, dead.lastError],
    );
    const [row] = rowsOf(result);
    return row === undefined ? undefined : shown(row);
  });
}

/**
 * Checks that the dead letters' table is at the version this payorch uses.
 * @throws {QueueError} naming the table, its version and how to create or migrate it
 */
export async function checkDeadLetterTable(store: DeadLetterStore): Promise<void> {
  await withClient(store, () => Promise.resolve());
}

/** The dead letters of one queue, over its table. */
export function deadLettersIn(store: DeadLetterStore): DeadLetters {
  return {
    async list(options = {}) {
      checkOptions('deadLetters.list', options, LIST_OPTIONS);
      const limit = options.limit ?? DEFAULT_DEAD_LETTER_PAGE;
      return withClient(store, async (client, table) => {
        const result = await client.query(
          `SELECT seq::text, id, ${LISTED_JOB}, attempts, last_error, dead_at FROM ${table} WHERE queue = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3`,
          [store.queue, options.cursor ?? '0', limit + 1],
        );
        const rows = rowsOf(result);
        const page = rows.slice(0, limit);
        return { deadLetters: page.map(shown), ...(rows.length > limit ? { cursor: page.at(-1)?.seq } : {}) };
      });
    },

    async get(id) {
      checkDeadLetterId('deadLetters.get', id);
      return withClient(store, async (client, table) => {
        const result = await client.query(`SELECT seq::text, id, job, attempts, last_error, dead_at FROM ${table} WHERE queue = $1 AND id = $2`, [store.queue, id]);
        const [row] = rowsOf(result);
        return row === undefined ? undefined : { ...shown(row), job: row.job as CallbackJob };
      });
    },

    async replay(options?: ReplayDeadLettersOptions) {
      const { ids, reseal } = checkReplayOptions(options, PGBOSS_REPLAY_BATCH);
      const which = ids === undefined ? '' : ' AND id = ANY($2::text[])';
      const values = ids === undefined ? [store.queue] : [store.queue, ids];
      return withClient(store, async (client, table) => {
        await client.query('BEGIN');
        let replayed: number;
        try {
          // Claimed for this transaction: a replay running at once skips them, and a purge waits.
          const claimed = rowsOf(await client.query(`SELECT seq::text, id, job FROM ${table} WHERE queue = $1${which} ORDER BY seq LIMIT ${PGBOSS_REPLAY_BATCH} FOR UPDATE SKIP LOCKED`, values));
          // Every job re-sealed before any is sent: a refusal sends nothing.
          const jobs = claimed.map((row) => (reseal === undefined ? row.job : resealDeadLetter(row.id, row.job, reseal)));
          // Sent in the transaction that deletes them: both are committed, or neither.
          const db: PgBossDatabase = { executeSql: async (text, sqlValues) => ({ rows: [...((await client.query(text, sqlValues)).rows ?? [])] }) };
          for (const job of jobs) await store.send(job, db);
          if (claimed.length > 0) await client.query(`DELETE FROM ${table} WHERE queue = $1 AND id = ANY($2::text[])`, [store.queue, claimed.map((row) => row.id)]);
          await client.query('COMMIT');
          replayed = claimed.length;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
        const [count] = (await client.query(`SELECT count(*)::int AS remaining FROM ${table} WHERE queue = $1${which}`, values)).rows ?? [];
        return { replayed, remaining: (count as { remaining: number } | undefined)?.remaining ?? 0 };
      });
    },

    async purge(options: PurgeDeadLettersOptions) {
      const which = checkPurgeOptions(options);
      const condition = 'ids' in which ? { sql: 'id = ANY($2::text[])', value: which.ids } : { sql: 'dead_at < $2', value: new Date(which.before) };
      return withClient(store, async (client, table) => {
        const { rowCount } = await client.query(`DELETE FROM ${table} WHERE queue = $1 AND ${condition.sql}`, [store.queue, condition.value]);
        return { purged: rowCount ?? 0 };
      });
    },
  };
}
