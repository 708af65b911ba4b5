// The D1 table of payorch/cloudflare-queues and the dead letters read from it. A row is a job that
// failed an attempt (kept with its attempts and last error while the queue retries it), and
// becomes a dead letter when the dead-letter queue's consumer delivers it. Its id is a digest of
// the job: every copy of one job is one row, whichever queue or message it came in, since
// Cloudflare does not say that a message keeps its id in the dead-letter queue.
import { checkOptions, checkValue, declareOptions } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import { sha256Hex } from '../../internal/hash/sha256.js';
import type { D1DatabaseLike } from '../../inboxes/d1/index.js';
import { checkD1Table } from '../../inboxes/sqlite-dialect/versions.js';
import type { SqliteTable } from '../../inboxes/sqlite-dialect/versions.js';
import { QueueError } from '../../errors/error.js';
import { PRE_RELEASE_DEAD_LETTERS } from '../../internal/table-versions.js';
import { DEAD_LETTER_PAGE_LIMIT, DEFAULT_DEAD_LETTER_PAGE, checkDeadLetterId, checkPurgeOptions, checkReplayOptions, deadLetterOf, resealDeadLetter } from '../dead-letters.js';
import type { DeadLetter, DeadLetters, ListDeadLettersOptions, ReplayDeadLettersOptions } from '../dead-letters.js';
import type { CallbackJob } from '../../webhooks/job.js';

/** The parts of a Queues producer binding (`env.CALLBACKS`) the adapter uses; Cloudflare's `Queue` fits. */
export interface QueueProducerLike {
  /** Sends one message; resolves once the queue holds it. */
  send(body: CallbackJob, options?: { readonly contentType?: 'json' }): Promise<unknown>;
  /** Sends up to 100 messages, 256 KB in all, as one write: all of them, or none. */
  sendBatch(messages: Iterable<{ readonly body: CallbackJob; readonly contentType?: 'json' }>): Promise<unknown>;
}

/** Cloudflare Queues' limits of one `sendBatch`: 100 messages, 256 KB (of 1000 bytes) in all. */
export const MAX_BATCH_MESSAGES = 100;
export const MAX_BATCH_BYTES = 256_000;
/** What Queues counts for each message beyond its body, at most (its limits page: "up to ~100 bytes of internal metadata"). */
export const MESSAGE_OVERHEAD_BYTES = 100;
/**
 * How long a replay holds the dead letters it took: one that stopped between sending and
 * deleting leaves its claim, and a replay after this sends them again (the inbox applies them once).
 */
const REPLAY_CLAIM_MS = 5 * 60_000;

export const DEFAULT_DEAD_LETTERS_TABLE = 'payorch_dead_letters';

export const DEAD_LETTERS_TABLE_OPTION: OptionDeclaration<'table'> = {
  name: 'table',
  rule: { type: 'text', maxLength: 63, pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, allowed: 'a name of letters, digits and _ (up to 63)' },
  default: DEFAULT_DEAD_LETTERS_TABLE,
};

/** The table's name, checked and quoted: checked, so quoting cannot be escaped. */
export function quoteDeadLettersTable(where: string, table: string | undefined): string {
  const name = table ?? DEFAULT_DEAD_LETTERS_TABLE;
  checkValue(where, DEAD_LETTERS_TABLE_OPTION, name);
  return `"${name}"`;
}

export function deadLettersTableSql(quoted: string): string {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoted} (`,
    '  id TEXT PRIMARY KEY,',
    '  job TEXT NOT NULL,',
    '  attempts INTEGER NOT NULL,',
    '  last_error TEXT NOT NULL,',
    '  failed_at INTEGER NOT NULL,',
    '  dead_at INTEGER,',
    '  replay_claim TEXT,',
    '  replay_claimed_at INTEGER,',
    '  history TEXT',
    ')',
  ].join('\n');
}

/**
 * The versions of the dead letters' D1 table, oldest first: version 1 is the shape of the first
 * release. A new version is one entry: its columns and primary key (as `pragma_table_info` shows
 * them), and the statements from the one before.
 */
export const D1_DEAD_LETTERS_TABLE: SqliteTable = {
  component: 'dead-letters',
  what: "the dead letters' table of payorch/cloudflare-queues",
  versions: [
    {
      version: 1,
      shape: ['id TEXT', 'job TEXT NOT NULL', 'attempts INTEGER NOT NULL', 'last_error TEXT NOT NULL', 'failed_at INTEGER NOT NULL', 'dead_at INTEGER', 'replay_claim TEXT', 'replay_claimed_at INTEGER', 'history TEXT', 'PRIMARY KEY (id)'],
    },
  ],
  // A pre-release build recorded 2 (with the history), its jobs of another form.
  retired: [2],
  preRelease: PRE_RELEASE_DEAD_LETTERS,
  migrate: 'createD1DeadLettersTable({ db }), or the SQL `payorch migrate d1-dead-letters --from <its version>` prints, as a wrangler migration',
  guide: 'docs/deferred.md, "Upgrading the dead letters\' table"',
  create: (table) => [deadLettersTableSql(table)],
  refuse: (message, options) => new QueueError(`payorch/cloudflare-queues: ${message}`, options),
};

/**
 * The row's earlier lives with the one it ends now (its attempts, last error and death) added, when
 * it is a dead letter: a replayed job starts a new life. SQLite reads each column of a SET as the
 * row was before the statement.
 */
const LIVES = `json_insert(coalesce(history, '[]'), '$[#]', json_object('attempts', attempts, 'lastError', last_error, 'deadAt', dead_at))`;
const livesIfDead = `CASE WHEN dead_at IS NOT NULL THEN ${LIVES} ELSE history END`;
/** Queues' longest message retention: a row not dead and not failed since then is of no message left. */
const QUEUE_RETENTION_MS = 14 * 86_400_000;

function statements(table: string) {
  const dead = 'dead_at IS NOT NULL';
  return {
    // A failed attempt: the row is (again) a job being retried, whatever it was, so that a replay
    // under way does not delete it, and a dead letter that is retried again leaves the list,
    // keeping the life it ends.
    failed: `INSERT INTO ${table} (id, job, attempts, last_error, failed_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (id) DO UPDATE SET history = ${livesIfDead}, attempts = excluded.attempts, last_error = excluded.last_error, failed_at = excluded.failed_at, dead_at = NULL, replay_claim = NULL, replay_claimed_at = NULL`,
    applied: `DELETE FROM ${table} WHERE id = ?1 AND dead_at IS NULL`,
    // The dead-letter queue's delivery: the row of its failures becomes a dead letter; without
    // one (D1 failed when the attempt failed) the job is kept all the same.
    dead: `INSERT INTO ${table} (id, job, attempts, last_error, failed_at, dead_at) VALUES (?1, ?2, 0, ?3, ?4, ?4) ON CONFLICT (id) DO UPDATE SET dead_at = excluded.dead_at WHERE dead_at IS NULL`,
    // A job that can never apply, dead at its first failure: its attempt and error are the dead letter's.
    deadNow: `INSERT INTO ${table} (id, job, attempts, last_error, failed_at, dead_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT (id) DO UPDATE SET history = ${livesIfDead}, attempts = excluded.attempts, last_error = excluded.last_error, failed_at = excluded.failed_at, dead_at = excluded.dead_at, replay_claim = NULL, replay_claimed_at = NULL`,
    some: `SELECT id, job, attempts, last_error, dead_at, history FROM ${table} WHERE ${dead} AND id IN (SELECT value FROM json_each(?1)) ORDER BY dead_at, id`,
    page: `SELECT id, job, attempts, last_error, dead_at, history FROM ${table} WHERE ${dead} AND (dead_at > ?1 OR (dead_at = ?1 AND id > ?2)) ORDER BY dead_at, id LIMIT ?3`,
    get: `SELECT id, job, attempts, last_error, dead_at, history FROM ${table} WHERE id = ?1 AND ${dead}`,
    // One statement, so that two replays at once take none of the same rows: the oldest dead
    // letters not held by a live claim (or those named), as many as one sendBatch takes, by
    // count and by bytes (a body's UTF-8 length, as a JSON message counts it, and the overhead);
    // the first always, since it was one message before.
    claim: [
      `UPDATE ${table} SET replay_claim = ?1, replay_claimed_at = ?2 WHERE id IN (`,
      `  SELECT id FROM (`,
      `    SELECT id, row_number() OVER w AS n, sum(length(CAST(job AS BLOB)) + ${MESSAGE_OVERHEAD_BYTES}) OVER w AS bytes FROM (`,
      `      SELECT id, job, dead_at FROM ${table} WHERE ${dead} AND (replay_claim IS NULL OR replay_claimed_at < ?3)`,
      `        AND (?4 IS NULL OR id IN (SELECT value FROM json_each(?4))) ORDER BY dead_at, id LIMIT ${MAX_BATCH_MESSAGES}`,
      `    ) WINDOW w AS (ORDER BY dead_at, id ROWS UNBOUNDED PRECEDING)`,
      `  ) WHERE n = 1 OR bytes <= ${MAX_BATCH_BYTES}`,
      `) RETURNING id, job, dead_at`,
    ].join('\n'),
    release: `UPDATE ${table} SET replay_claim = NULL, replay_claimed_at = NULL WHERE replay_claim = ?1`,
    // Only rows still held by this claim and still dead (one that failed again meanwhile kept its
    // life already): no longer dead letters, their lives kept for the job's next death. A
    // re-sealed job is another row (its id is its text's): its lives move to the new row.
    sent: `UPDATE ${table} SET history = ${LIVES}, dead_at = NULL, attempts = 0, last_error = '', failed_at = ?2, replay_claim = NULL, replay_claimed_at = NULL WHERE replay_claim = ?1 AND ${dead}`,
    resealedSent: `INSERT INTO ${table} (id, job, attempts, last_error, failed_at, history) SELECT ?3, ?4, 0, '', ?2, ${LIVES} FROM ${table} WHERE id = ?5 AND replay_claim = ?1 AND ${dead} ON CONFLICT (id) DO NOTHING`,
    resealedGone: `DELETE FROM ${table} WHERE id = ?2 AND replay_claim = ?1 AND ${dead}`,
    // A replayed job applied at its first attempt leaves its row (the handler forgets failures
    // only of a job that had some): gone once no queue can hold its message.
    stale: `DELETE FROM ${table} WHERE dead_at IS NULL AND replay_claim IS NULL AND failed_at < ?1`,
    // Those the replay named, or every one.
    count: `SELECT count(*) AS n FROM ${table} WHERE ${dead} AND (?1 IS NULL OR id IN (SELECT value FROM json_each(?1)))`,
    // Not a row a live replay holds: it is being sent, and deleting it would report purged a job
    // that the replay sends all the same.
    purgeIds: `DELETE FROM ${table} WHERE ${dead} AND (replay_claim IS NULL OR replay_claimed_at < ?2) AND id IN (SELECT value FROM json_each(?1))`,
    purgeBefore: `DELETE FROM ${table} WHERE ${dead} AND (replay_claim IS NULL OR replay_claimed_at < ?2) AND dead_at < ?1`,
  };
}

/** A job as the table keeps it: its JSON, or the text of a body that has none (a message another producer wrote). */
export function jobText(body: unknown): string {
  try {
    const text = JSON.stringify(body);
    if (typeof text === 'string') return text;
  } catch {
    // A BigInt or a cycle, from a producer that is not this adapter.
  }
  return JSON.stringify(String(body));
}

/** The row id of a job: the first 128 bits of the SHA-256 of its JSON, in hex. */
export const jobId = (text: string): string => sha256Hex(text).slice(0, 32);

interface Row {
  readonly id: string;
  readonly job: string;
  readonly attempts: number;
  readonly last_error: string;
  readonly dead_at: number;
  /** The earlier lives' JSON, or null for a job never replayed. */
  readonly history?: string | null;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const deadLetterOfRow = (row: Row): DeadLetter => deadLetterOf(parsed(row.job), { id: row.id, attempts: row.attempts, lastError: row.last_error, deadAt: new Date(row.dead_at), history: row.history });

export const CLOUDFLARE_LIST_OPTIONS = declareOptions<ListDeadLettersOptions>()([
  DEAD_LETTER_PAGE_LIMIT,
  { name: 'cursor', rule: { type: 'text', maxLength: 100, pattern: /^\d{1,16}\.[0-9a-f]{32}$/, allowed: 'the cursor of the page before, as list returned it' } },
]);

/** The table's writes of the queue handler, and the dead letters a person reads and acts on. */
export interface DeadLetterTable {
  /** An attempt of the job failed: keeps its attempts and last error for its dead letter. */
  failed(text: string, attempts: number, lastError: string): Promise<void>;
  /** The job was applied after failed attempts: forgets them. */
  applied(text: string): Promise<void>;
  /** The dead-letter queue delivered these jobs: keeps them all, in one batch, or none; returns them as dead letters. */
  dead(texts: readonly string[]): Promise<DeadLetter[]>;
  /** A job that can never apply: a dead letter at once, with this attempt and its error. */
  deadNow(text: string, attempts: number, lastError: string): Promise<DeadLetter[]>;
  readonly deadLetters: DeadLetters;
}

/** The dead-letter table `table` (quoted) of `db`, replaying through `queue`. */
export function deadLetterTable(db: D1DatabaseLike, table: string, queue: QueueProducerLike): DeadLetterTable {
  const sql = statements(table);
  // Checked on first use, once per binding and table.
  const ready = (): Promise<void> => checkD1Table(db, D1_DEAD_LETTERS_TABLE, table.slice(1, -1), 'createD1DeadLettersTable({ db }), or d1DeadLettersTableSql() as a wrangler migration');
  const remaining = async (ids: string | null): Promise<number> => (await db.prepare(sql.count).bind(ids).first<number>('n')) ?? 0;

  const deadLetters: DeadLetters = {
    async list(options = {}) {
      await ready();
      checkOptions('deadLetters.list', options, CLOUDFLARE_LIST_OPTIONS);
      const limit = options.limit ?? DEFAULT_DEAD_LETTER_PAGE;
      const [deadAt, id] = options.cursor === undefined ? [-1, ''] : [Number(options.cursor.split('.')[0]), options.cursor.split('.')[1] ?? ''];
      const { results = [] } = await db.prepare(sql.page).bind(deadAt, id, limit + 1).all<Row>();
      const rows = results.slice(0, limit);
      const last = rows.at(-1);
      return { deadLetters: rows.map(deadLetterOfRow), ...(results.length > limit && last !== undefined ? { cursor: `${last.dead_at}.${last.id}` } : {}) };
    },

    async get(id) {
      await ready();
      const row = await db.prepare(sql.get).bind(checkDeadLetterId('deadLetters.get', id)).first<Row>();
      // A dead letter may be anything a producer wrote: `apply` checks it before it pays anything.
      return row === null ? undefined : { ...deadLetterOfRow(row), job: parsed(row.job) as CallbackJob };
    },

    async replay(options = {}) {
      await ready();
      const checked = checkReplayOptions(options, MAX_BATCH_MESSAGES);
      const ids = checked.ids === undefined ? null : JSON.stringify(checked.ids);
      const claim = crypto.randomUUID();
      const now = Date.now();
      const { results = [] } = await db.prepare(sql.claim).bind(claim, now, now - REPLAY_CLAIM_MS, ids).all<Row>();
      const rows = [...results].sort((a, b) => a.dead_at - b.dead_at || (a.id < b.id ? -1 : 1));
      if (rows.length === 0) return { replayed: 0, remaining: await remaining(ids) };
      let jobs: CallbackJob[];
      try {
        jobs = rows.map((row) => resealed(row, checked.reseal));
        await queue.sendBatch(jobs.map((body) => ({ body, contentType: 'json' as const })));
      } catch (error) {
        // Nothing was sent: the next replay may take them at once.
        await db.prepare(sql.release).bind(claim).run().catch(() => undefined);
        throw error;
      }
      // Sent before deleted: a failure in between sends them again after the claim's time, and
      // the inbox applies each once.
      const sentAt = Date.now();
      const moved = rows.flatMap((row, index) => {
        if (checked.reseal === undefined) return [];
        const text = jobText(jobs[index]);
        const id = jobId(text);
        return id === row.id ? [] : [db.prepare(sql.resealedSent).bind(claim, sentAt, id, text, row.id), db.prepare(sql.resealedGone).bind(claim, row.id)];
      });
      await db.batch([...moved, db.prepare(sql.sent).bind(claim, sentAt), db.prepare(sql.stale).bind(sentAt - QUEUE_RETENTION_MS)]);
      return { replayed: rows.length, remaining: await remaining(ids) };
    },

    async purge(options) {
      await ready();
      const which = checkPurgeOptions(options);
      const claimedBefore = Date.now() - REPLAY_CLAIM_MS;
      if ('ids' in which) return { purged: changes(await db.prepare(sql.purgeIds).bind(JSON.stringify(which.ids), claimedBefore).run()) };
      return { purged: changes(await db.prepare(sql.purgeBefore).bind(which.before, claimedBefore).run()) };
    },
  };

  return {
    async failed(text, attempts, lastError) {
      await ready();
      await db.prepare(sql.failed).bind(jobId(text), text, attempts, lastError, Date.now()).run();
    },
    async applied(text) {
      await ready();
      await db.prepare(sql.applied).bind(jobId(text)).run();
    },
    async dead(texts) {
      await ready();
      const now = Date.now();
      const ids = texts.map(jobId);
      const results = await db.batch([
        ...texts.map((text, index) => db.prepare(sql.dead).bind(ids[index], text, 'not recorded: D1 failed when its last attempt failed', now)),
        db.prepare(sql.some).bind(JSON.stringify(ids)),
      ]);
      return rowsOf(results.at(-1)).map(deadLetterOfRow);
    },
    async deadNow(text, attempts, lastError) {
      await ready();
      const id = jobId(text);
      const results = await db.batch([db.prepare(sql.deadNow).bind(id, text, attempts, lastError, Date.now()), db.prepare(sql.some).bind(JSON.stringify([id]))]);
      return rowsOf(results.at(-1)).map(deadLetterOfRow);
    },
    deadLetters,
  };
}

function rowsOf(result: unknown): readonly Row[] {
  return (result as { readonly results?: readonly Row[] } | undefined)?.results ?? [];
}

function changes(result: { readonly meta?: { readonly changes?: number | undefined } | undefined }): number {
  return result.meta?.changes ?? 0;
}

/** A dead letter's job as it is sent again: re-sealed when asked, its failure naming the dead letter. */
function resealed(row: Row, reseal: ReplayDeadLettersOptions['reseal']): CallbackJob {
  const job = parsed(row.job) as CallbackJob;
  return reseal === undefined ? job : resealDeadLetter(row.id, job, reseal);
}
