// The dead letters of one queue of a PostgreSQL engine (pg-boss), in a table of the merchant's
// PostgreSQL: kept by the worker, listed, replayed and purged by a person. No retention of the
// engine's reaches the table. The engine sends a replayed job, in the transaction that deletes it.
import { checkOptions, declareOptions } from '../core/option-checks.js';
import { DEAD_LETTER_PAGE_LIMIT, DEFAULT_DEAD_LETTER_PAGE, checkDeadLetterId, checkPurgeOptions, checkReplayOptions, deadLetterOf, resealDeadLetter, storedHistory, storedLife } from './dead-letters.js';
import type { StoredLife } from './dead-letters.js';
import type { DeadLetter, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions, ReplayDeadLettersOptions } from './dead-letters.js';
import type { PostgresClient, PostgresPool } from '../postgres/table.js';
import type { CallbackJob } from '../webhooks/job.js';
import { checkPostgresTable } from '../postgres/versions.js';
import type { PostgresTable } from '../postgres/versions.js';

/** How many dead letters one replay sends at most: one transaction of PostgreSQL's, kept short. */
export const POSTGRES_REPLAY_BATCH = 100;

export const LIST_OPTIONS = declareOptions<ListDeadLettersOptions>()([
  DEAD_LETTER_PAGE_LIMIT,
  { name: 'cursor', rule: { type: 'text', maxLength: 19, pattern: /^\d+$/, allowed: 'the cursor of the page before, as list returned it' } },
]);

/** What the dead letters of one queue work with. */
export interface DeadLetterStore {
  readonly pool: PostgresPool;
  /** The table's name with its schema, once resolved. */
  readonly table: (client: PostgresClient) => Promise<string>;
  /** The table's versions and refusals, naming the adapter (deadLetterTable). */
  readonly definition: PostgresTable;
  /** How to create the table, as the refusal of a missing one says. */
  readonly create: string;
  /** The engine's queue the dead letters died on, and are replayed to. */
  readonly queue: string;
  /** Sends a replayed job to `queue` inside the open transaction of `client`. */
  readonly send: (job: ReplayedJob, client: PostgresClient) => Promise<unknown>;
}

/** A dead letter as a replay sends it back to its engine's queue. */
export interface ReplayedJob {
  /** The job's JSON text, as it was sealed (or re-sealed). */
  readonly job: string;
  /** Its lives so far, the one just ended last: the engine keeps them beside the job, never inside it. */
  readonly history: readonly StoredLife[];
}

/** A dead job as the worker keeps it. */
export interface DeadJob {
  /** The engine's id of the job that died. */
  readonly id: string;
  readonly job: unknown;
  readonly attempts: number;
  readonly lastError: string;
  /** Its earlier lives, from the job's data: each time it died before a replay. */
  readonly history: readonly StoredLife[];
}

/**
 * Text PostgreSQL can keep in a text or jsonb column: each NUL and lone surrogate made U+FFFD. For
 * what payorch writes of its own (an error), never for a job, which must stay as it was sealed.
 */
export const storable = (text: string): string => text.replace(/\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

interface Row {
  readonly seq: string;
  readonly id: string;
  /** The job's JSON; what list reads of it, as an object. */
  readonly job: unknown;
  readonly attempts: number;
  readonly last_error: string;
  readonly dead_at: Date;
  /** The earlier lives' JSON, or null for a job never replayed. */
  readonly history: string | null;
}

/** The job of a row: parsed from its JSON text (text that is not JSON as it is: `apply` refuses it), or as list read it. */
function jobIn(job: unknown): unknown {
  if (typeof job !== 'string') return job;
  try {
    return JSON.parse(job) as unknown;
  } catch {
    return job;
  }
}

const shown = (row: Row): DeadLetter => deadLetterOf(jobIn(row.job), { id: row.id, attempts: row.attempts, lastError: row.last_error, deadAt: new Date(row.dead_at), history: row.history });

// What list reads of a job: the fields a dead letter shows, never the payload's names or IBANs.
// The column is text, since jsonb refuses some of what a callback may hold; read as jsonb here
// with each \u0000 and surrogate escape ($4) made U+FFFD, which leaves the JSON valid and touches
// none of the fields shown.
const LISTED_JOB = `(SELECT jsonb_build_object('kind', j->'kind', 'merchantId', j->'merchantId', 'receivedAt', j->'receivedAt',
  'payload', jsonb_build_object('tracking_code', j->'payload'->'tracking_code', 'transfer_id', j->'payload'->'transfer_id', 'status', j->'payload'->'status'))
  FROM (SELECT regexp_replace(job, $4, $5, 'g')::jsonb AS j) AS parsed) AS job`;
/** The escapes jsonb refuses, and what the listing reads instead ($4 and $5 of `LISTED_JOB`). */
const UNREADABLE_ESCAPES = ['\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '\\\\ufffd'] as const;

// The stores whose table was found at the current version: checked on first use, once.
const checked = new WeakSet<DeadLetterStore>();

async function withClient<T>(store: DeadLetterStore, use: (client: PostgresClient, table: string) => Promise<T>): Promise<T> {
  const client = await store.pool.connect();
  try {
    const table = await store.table(client);
    if (!checked.has(store)) {
      await checkPostgresTable(client, store.definition, table, store.create);
      checked.add(store);
    }
    return await use(client, table);
  } finally {
    client.release();
  }
}

const rowsOf = (result: { readonly rows?: readonly unknown[] | undefined }): Row[] => (result.rows ?? []) as Row[];

/**
 * Keeps a dead job, once: a second keep of the same id (the worker kept it, then died before the
 * engine heard, and the engine brought it again) changes nothing.
 * @returns the dead letter kept now, or `undefined` when it was kept before
 */
export async function keepDeadJob(store: DeadLetterStore, dead: DeadJob): Promise<DeadLetter | undefined> {
  return withClient(store, async (client, table) => {
    const result = await client.query(
      `INSERT INTO ${table} (id, queue, job, attempts, last_error, history) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING RETURNING seq::text, id, job, attempts, last_error, dead_at, history`,
      [dead.id, store.queue, JSON.stringify(dead.job), dead.attempts, storable(dead.lastError), dead.history.length === 0 ? null : JSON.stringify(dead.history.map((life) => ({ ...life, lastError: storable(life.lastError) })))],
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
          `SELECT seq::text, id, ${LISTED_JOB}, attempts, last_error, dead_at, history FROM ${table} WHERE queue = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3`,
          [store.queue, options.cursor ?? '0', limit + 1, ...UNREADABLE_ESCAPES],
        );
        const rows = rowsOf(result);
        const page = rows.slice(0, limit);
        return { deadLetters: page.map(shown), ...(rows.length > limit ? { cursor: page.at(-1)?.seq } : {}) };
      });
    },

    async get(id) {
      checkDeadLetterId('deadLetters.get', id);
      return withClient(store, async (client, table) => {
        const result = await client.query(`SELECT seq::text, id, job, attempts, last_error, dead_at, history FROM ${table} WHERE queue = $1 AND id = $2`, [store.queue, id]);
        const [row] = rowsOf(result);
        return row === undefined ? undefined : { ...shown(row), job: jobIn(row.job) as CallbackJob };
      });
    },

    async replay(options?: ReplayDeadLettersOptions) {
      const { ids, reseal } = checkReplayOptions(options, POSTGRES_REPLAY_BATCH);
      const which = ids === undefined ? '' : ' AND id = ANY($2::text[])';
      const values = ids === undefined ? [store.queue] : [store.queue, ids];
      return withClient(store, async (client, table) => {
        await client.query('BEGIN');
        let replayed: number;
        try {
          // Claimed for this transaction: a replay running at once skips them, and a purge waits.
          const claimed = rowsOf(await client.query(`SELECT seq::text, id, job, attempts, last_error, dead_at, history FROM ${table} WHERE queue = $1${which} ORDER BY seq LIMIT ${POSTGRES_REPLAY_BATCH} FOR UPDATE SKIP LOCKED`, values));
          // Every job re-sealed before any is sent: a refusal sends nothing.
          // Each carries its lives so far, this one added: a job that dies again shows them all.
          const jobs = claimed.map((row): ReplayedJob => ({
            job: reseal === undefined ? (row.job as string) : JSON.stringify(resealDeadLetter(row.id, jobIn(row.job), reseal)),
            history: [...storedHistory(row.history), storedLife(row.attempts, row.last_error, new Date(row.dead_at).getTime())],
          }));
          // Sent in the transaction that deletes them: both are committed, or neither.
          for (const job of jobs) await store.send(job, client);
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
