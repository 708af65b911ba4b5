import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Queue } from 'bullmq';
import { DEFAULT_PGBOSS_DEAD_LETTER_TABLE, DEFAULT_PGBOSS_QUEUE, QueueError } from 'payorch/pg-boss';
import type { DeadLetters, PgBossJobData, PgBossLike, PostgresClient, PostgresPool } from 'payorch/pg-boss';
import type { CallbackJob } from 'payorch/webhooks';
import {
  BULLMQ_DEFAULTS,
  BULLMQ_REPLAY_BATCH,
  PGBOSS_CREATE_DEAD_LETTER_TABLE,
  PGBOSS_DEAD_LETTER_TABLE,
  POSTGRES_REPLAY_BATCH,
  bullMQDeadLetters,
  checkDeadLetterTable,
  deadLettersIn,
  deadLetterTableName,
  inTransaction,
} from '../cli-internals.js';
import { UsageError, printable } from './io.js';
import type { Io } from './io.js';

/*
 * The queues `payorch dead-letters` works on, opened with the engine's packages of the merchant's
 * project (resolved from the directory the command runs in, as the merchant's workers resolve
 * them), never with packages of payorch's own: the merchant's engine is the one that wrote the
 * jobs, and `npx payorch` may run from a cache that has none. Over them, the adapters' own dead
 * letters (their modules import no engine).
 */

/** Where the dead letters are, as the command line named them. */
export interface QueueSettings {
  readonly engine: Engine;
  /** The engine's URL, from its flag or its variable. */
  readonly url: string;
  readonly queue: string;
  /** The values of the engine's own flags (`flags` of its row), by name without `--`. */
  readonly flags: Readonly<Record<string, string | undefined>>;
}

/**
 * An engine the command opens: a row of {@link ENGINES}. A new queue adapter is one row, and its
 * dead letters are replayed by the engine of the row the command line chose, the one that wrote
 * them: a PostgreSQL engine's table records its engine (`payorch_schema`), and another's refuses.
 */
export interface Engine {
  /** `--engine`'s value. */
  readonly name: string;
  /** What messages call it. */
  readonly label: string;
  /** Where it is: the flag and variable of its URL, and an example of one. */
  readonly url: { readonly flag: string; readonly variable: string; readonly example: string; readonly help: string };
  /** The queue when `--queue` is not given: its adapter's default. */
  readonly defaultQueue: string;
  /** Its own flags (without `--`), each with the value it takes and its help. */
  readonly flags: Readonly<Record<string, { readonly value: string; readonly help: string }>>;
  /** Opens its dead letters; only a `replay` needs the engine itself. */
  open(settings: QueueSettings, cwd: string, replay: boolean, io: Io): Promise<OpenQueue>;
}

/** A queue opened for its dead letters. */
export interface OpenQueue {
  readonly deadLetters: DeadLetters;
  /** The queue as messages name it, without the URL's credentials. */
  readonly name: string;
  /** How many dead letters one `replay` sends at most on this engine. */
  readonly batch: number;
  close(): Promise<void>;
}

/** How long opening a connection may take before the command gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

/** A URL without its user, password and query: what a message may show of a database's address. */
export function safeAddress(url: string): string {
  if (!URL.canParse(url)) return 'the URL given';
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname === '/' ? '' : pathname}`;
}

/**
 * A package of the merchant's project, by its name, as `import` there would load it (its main
 * file as `require` resolves it: a package with no `require` export is not one these engines
 * ship). A package the project lacks is a usage error naming what to install.
 */
export async function fromProject(cwd: string, name: string, install: string, command = 'payorch dead-letters'): Promise<Readonly<Record<string, unknown>>> {
  const require = createRequire(join(cwd, 'package.json'));
  let path: string;
  try {
    path = require.resolve(name);
  } catch (error) {
    if ((error as Partial<Record<'code', unknown>> | null)?.code !== 'MODULE_NOT_FOUND') throw error;
    throw new UsageError(`${name} is not installed in ${cwd}: ${command} uses your project's own ${name}, as your workers do. Run npm install ${install} there, or run the command from the project's directory`);
  }
  return (await import(pathToFileURL(path).href)) as Readonly<Record<string, unknown>>;
}

/** A class a package exports, by name (a CommonJS package's exports are its default export's members). */
export function exported(module: Readonly<Record<string, unknown>>, name: string, wanted: string, command = 'payorch dead-letters'): unknown {
  const inDefault = module['default'];
  const found = module[name] ?? (typeof inDefault === 'object' && inDefault !== null ? (inDefault as Readonly<Record<string, unknown>>)[name] : undefined);
  if (typeof found !== 'function') throw new UsageError(`the project's package exports no ${name}: ${command} needs ${wanted}, as payorch's adapter does`);
  return found;
}

/** What the command uses of node-postgres' Pool. */
type Pool = PostgresPool & { end(): Promise<void>; on(event: 'error', listener: (error: Error) => void): unknown };
type PoolClass = new (config: { readonly connectionString: string; readonly max: number; readonly connectionTimeoutMillis: number }) => Pool;

/** What the command uses of pg-boss 12's PgBoss: no supervision, schedules, migration or registry of its own. */
type PgBoss = Pick<PgBossLike, 'send'> & { start(): Promise<unknown>; stop(options?: { readonly graceful?: boolean }): Promise<void>; on(event: 'error', listener: (error: Error) => void): unknown };
type PgBossClass = new (config: {
  readonly connectionString: string;
  readonly schema?: string;
  readonly supervise: false;
  readonly schedule: false;
  readonly migrate: false;
  readonly registerInstance: false;
  readonly max: number;
}) => PgBoss;

type QueueClass = typeof Queue<CallbackJob>;

async function openPgBoss(settings: QueueSettings, cwd: string, replay: boolean, io: Io): Promise<OpenQueue> {
  const { table: tableGiven, 'pg-boss-schema': bossSchema } = settings.flags;
  // The table's name is checked before anything is loaded or opened.
  const table = deadLetterTableName('--table', { table: tableGiven });
  const Pool = exported(await fromProject(cwd, 'pg', 'pg'), 'Pool', 'node-postgres (pg 8)') as PoolClass;
  // Only a replay sends to pg-boss; the dead letters are rows of a table.
  const PgBossClass = replay ? (exported(await fromProject(cwd, 'pg-boss', 'pg-boss'), 'PgBoss', 'pg-boss 12') as PgBossClass) : undefined;
  const pool = new Pool({ connectionString: settings.url, max: 2, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // An idle connection's error: the query in progress, if any, reports its own.
  pool.on('error', () => undefined);
  let boss: PgBoss | undefined;
  const close = async (): Promise<void> => {
    await boss?.stop({ graceful: false });
    await pool.end();
  };
  try {
    if (PgBossClass !== undefined) {
      boss = new PgBossClass({ connectionString: settings.url, ...(bossSchema === undefined ? {} : { schema: bossSchema }), supervise: false, schedule: false, migrate: false, registerInstance: false, max: 2 });
      boss.on('error', (error) => io.stderr.write(`payorch dead-letters: pg-boss: ${printable(error.message)}\n`));
      await boss.start();
    }
    const running = boss;
    const store = {
      pool,
      table,
      definition: PGBOSS_DEAD_LETTER_TABLE,
      create: PGBOSS_CREATE_DEAD_LETTER_TABLE,
      queue: settings.queue,
      // The replayed job's data as the merchant's pg-boss workers read it: the job, its lives beside it.
      send: async (replayed: PgBossJobData, client: PostgresClient) => {
        if (running === undefined) throw new QueueError('payorch dead-letters: pg-boss was not started for a replay');
        // No policy of its own: pg-boss gives the job the queue's, which the merchant's
        // createPgBossQueue set (retries, expiry, its dead-letter queue). The adapter's defaults
        // here would override the merchant's settings for every job replayed.
        if ((await running.send(settings.queue, { job: replayed.job, history: replayed.history }, { db: inTransaction(client) })) === null) throw new QueueError(`pg-boss did not take the replayed job on ${settings.queue}; nothing was replayed`);
      },
    };
    await checkDeadLetterTable(store);
    return { deadLetters: deadLettersIn(store), name: `queue ${settings.queue} (pg-boss, ${tableGiven ?? DEFAULT_PGBOSS_DEAD_LETTER_TABLE} on ${safeAddress(settings.url)})`, batch: POSTGRES_REPLAY_BATCH, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

async function openBullMQ(settings: QueueSettings, cwd: string): Promise<OpenQueue> {
  const prefix = settings.flags['prefix'] ?? BULLMQ_DEFAULTS.prefix;
  const bullmq = await fromProject(cwd, 'bullmq', 'bullmq ioredis');
  // BullMQ 6 leaves ioredis to the project (an optional peer): say so before bullmq fails on it.
  await fromProject(cwd, 'ioredis', 'ioredis');
  const QueueClass = exported(bullmq, 'Queue', 'BullMQ 6') as QueueClass;
  let lastError: Error | undefined;
  const queue = new QueueClass(settings.queue, {
    prefix,
    // A few tries, then the command fails rather than wait for Redis forever, as a worker would.
    connection: { url: settings.url, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 1, retryStrategy: (times: number) => (times > 3 ? null : 200) },
  });
  // Unheard, a connection error would end the process; it is the reason a command below fails.
  queue.on('error', (error) => {
    lastError = error;
  });
  try {
    await queue.waitUntilReady();
    // waitUntilReady can resolve while Redis is still unreachable; a command cannot.
    await queue.getFailedCount();
  } catch (error) {
    await queue.close().catch(() => undefined);
    throw lastError ?? error;
  }
  return { deadLetters: bullMQDeadLetters(queue), name: `queue ${settings.queue} (BullMQ, prefix ${prefix}, on ${safeAddress(settings.url)})`, batch: BULLMQ_REPLAY_BATCH, close: () => queue.close() };
}

/** The engines `payorch dead-letters` opens, one row each. */
export const ENGINES: readonly Engine[] = [
  {
    name: 'pg-boss',
    label: 'pg-boss',
    url: { flag: '--database-url', variable: 'DATABASE_URL', example: 'postgres://user:password@host:5432/database', help: 'its PostgreSQL' },
    defaultQueue: DEFAULT_PGBOSS_QUEUE,
    flags: {
      table: { value: '<name>', help: `the dead letters' table, optionally schema.table (default ${DEFAULT_PGBOSS_DEAD_LETTER_TABLE})` },
      'pg-boss-schema': { value: '<name>', help: "pg-boss's own schema, for replay (default pg-boss's, pgboss)" },
    },
    open: openPgBoss,
  },
  {
    name: 'bullmq',
    label: 'BullMQ',
    url: { flag: '--redis-url', variable: 'REDIS_URL', example: 'redis://:password@host:6379', help: 'its Redis' },
    defaultQueue: BULLMQ_DEFAULTS.queue,
    flags: { prefix: { value: '<prefix>', help: `the queue's key prefix (default ${BULLMQ_DEFAULTS.prefix})` } },
    open: (settings, cwd) => openBullMQ(settings, cwd),
  },
];

/**
 * Opens the queue's dead letters with the engine's packages of the project in `io.cwd` (pg, and
 * pg-boss for a replay; bullmq and ioredis).
 * @throws {UsageError} when the project lacks a package, naming the `npm install` to run
 */
export function openQueue(settings: QueueSettings, io: Io, options: { readonly replay: boolean }): Promise<OpenQueue> {
  return settings.engine.open(settings, io.cwd ?? process.cwd(), options.replay, io);
}
