import { createPgBossDeadLetterTable } from 'payorch/pg-boss';
import { DEFAULT_POSTGRES_INBOX_TABLE, createPostgresInboxTable } from 'payorch/postgres';
import type { PostgresPool, TableMigration } from 'payorch/postgres';
import { RequestValidationError, isPayorchError } from 'payorch/webhooks';
import { D1_DEAD_LETTERS_TABLE, DEAD_LETTERS_TABLE_OPTION, SQLITE_TABLE_OPTION, sqliteInboxTable, sqliteMigrationSql } from '../cli-internals.js';
import { exported, fromProject, safeAddress } from './dead-letter-queues.js';
import { COMMON_OPTIONS, EXIT_OK, OperationError, UsageError, emit, parse, printable, requireSetting } from './io.js';
import type { Command, Io } from './io.js';
import { didYouMean } from './suggest.js';

/*
 * `payorch migrate`: a payorch table brought to the version this payorch uses. PostgreSQL's by the
 * library's own call, with the project's `pg`; D1's printed as SQL for wrangler, which owns the
 * binding. The SQL is the statements createD1InboxTable runs in one batch.
 */

const D1_INBOX_TABLE = sqliteInboxTable('payorch/d1', 'createD1InboxTable({ db })');
const D1_TABLES = {
  'd1-inbox': { table: D1_INBOX_TABLE, option: SQLITE_TABLE_OPTION },
  'd1-dead-letters': { table: D1_DEAD_LETTERS_TABLE, option: DEAD_LETTERS_TABLE_OPTION },
} as const;
const POSTGRES_TABLES = {
  'postgres-inbox': (options: { pool: PostgresPool; table?: string; schema?: string }) => createPostgresInboxTable(options),
  'pg-boss-dead-letters': (options: { pool: PostgresPool; table?: string; schema?: string }) => createPgBossDeadLetterTable(options),
} as const;
const STORES = [...Object.keys(POSTGRES_TABLES), ...Object.keys(D1_TABLES)];

const USAGE = `Usage: payorch migrate <store> [options]

Brings a table of payorch's to the version this payorch uses, in place, keeping every row: creates
it when missing, migrates an earlier version, leaves a current one; refuses (exit 1) a later
version or a table changed by hand. Each version is recorded in payorch_schema beside the table.

  postgres-inbox          the inbox table of payorch/postgres
  pg-boss-dead-letters    the dead letters' table of payorch/pg-boss
  d1-inbox                the inbox table of payorch/d1: prints the SQL, for wrangler
  d1-dead-letters         the dead letters' table of payorch/cloudflare-queues: prints the SQL

PostgreSQL: run it in your project's directory, which has pg; one transaction, under an advisory
lock, so it is safe while your instances run or start. D1: put the SQL in a file of wrangler's
migrations (wrangler d1 migrations create DB payorch), then wrangler d1 migrations apply DB.

Options:
  --database-url <url>   PostgreSQL (default $DATABASE_URL)
  --table <name>         the table (default the store's: ${DEFAULT_POSTGRES_INBOX_TABLE}, payorch_dead_letters)
  --schema <name>        PostgreSQL: the table's schema (default the current one)
  --from <version>       D1: the version the table is at, as the refusal names it; without it,
                         the SQL that creates the table
  --json                 PostgreSQL: { table, from, to } (from null when created)
  -h, --help             show this text

Examples:
  payorch migrate postgres-inbox --database-url "$DATABASE_URL"
  payorch migrate d1-inbox > migrations/0001_payorch_inbox.sql
  payorch migrate d1-inbox --from 1 > migrations/0002_payorch_inbox.sql   # after an upgrade`;

const OPTIONS = { ...COMMON_OPTIONS, 'database-url': { type: 'string' }, table: { type: 'string' }, schema: { type: 'string' }, from: { type: 'string' } } as const;

/** What the command uses of node-postgres' Pool. */
type Pool = PostgresPool & { end(): Promise<void>; on(event: 'error', listener: (error: Error) => void): unknown };
type PoolClass = new (config: { readonly connectionString: string; readonly max: number; readonly connectionTimeoutMillis: number }) => Pool;

function said(migration: TableMigration): string {
  if (migration.from === undefined) return `Created ${migration.table} at version ${String(migration.to)}.`;
  if (migration.from === migration.to) return `${migration.table} is at version ${String(migration.to)} already: nothing to do.`;
  return `Migrated ${migration.table} from version ${String(migration.from)} to ${String(migration.to)}, keeping its rows.`;
}

async function run(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS, true);
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_OK;
  }
  const [store, ...rest] = positionals;
  if (store === undefined) throw new UsageError(`name the store: ${STORES.join(', ')}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}: migrate takes one store`);
  if (Object.hasOwn(D1_TABLES, store)) {
    const { table, option } = D1_TABLES[store as keyof typeof D1_TABLES];
    if (values['database-url'] !== undefined || values.schema !== undefined || values.json) throw new UsageError(`${store} prints SQL: --database-url, --schema and --json are for PostgreSQL`);
    const name = values.table ?? String(option.default);
    if (!(option.rule.type === 'text' && option.rule.pattern?.test(name) === true)) throw new UsageError(`--table: must be ${option.rule.type === 'text' ? option.rule.allowed ?? 'a name' : 'a name'}; got ${JSON.stringify(printable(name))}`);
    const versions = table.versions.map((each) => each.version);
    const to = versions.at(-1) ?? 1;
    const from = values.from === undefined ? undefined : Number(values.from);
    if (from !== undefined && !(Number.isInteger(from) && versions.includes(from))) throw new UsageError(`--from: must be a version of ${store} (${versions.join(', ')}); got ${JSON.stringify(printable(values.from ?? ''))}`);
    const what =
      from === undefined ? `creates "${name}" at version ${String(to)}`
      : from === to ? `records "${name}" at version ${String(to)}, the one this payorch uses: nothing to migrate`
      : `migrates "${name}" from version ${String(from)} to ${String(to)}; it fails, changing nothing, unless the table is at version ${String(from)}`;
    io.stdout.write(`-- payorch ${store}: ${what}.\n${sqliteMigrationSql(table, name, from).join(';\n')};\n`);
    return EXIT_OK;
  }
  if (!Object.hasOwn(POSTGRES_TABLES, store)) throw new UsageError(`unknown store ${JSON.stringify(printable(store))}${didYouMean(store, STORES)}; one of ${STORES.join(', ')}`);
  if (values.from !== undefined) throw new UsageError('--from is for the D1 stores: PostgreSQL reads the version from the table');
  const url = requireSetting(values['database-url'], io, '--database-url', 'DATABASE_URL');
  const migrate = POSTGRES_TABLES[store as keyof typeof POSTGRES_TABLES];
  const PoolClass = exported(await fromProject(io.cwd ?? process.cwd(), 'pg', 'pg', 'payorch migrate'), 'Pool', 'node-postgres (pg 8)', 'payorch migrate') as PoolClass;
  const pool = new PoolClass({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  try {
    const migration = await migrate({ pool, ...(values.table === undefined ? {} : { table: values.table }), ...(values.schema === undefined ? {} : { schema: values.schema }) });
    emit(io, values.json, () => said(migration), () => ({ ...migration, from: migration.from ?? null }));
    return EXIT_OK;
  } catch (error) {
    if (isPayorchError(error, RequestValidationError)) throw new UsageError(error.message);
    // A refusal says what to do; the engine's own failures say where.
    if (isPayorchError(error)) throw new OperationError(error.message);
    throw new OperationError(`PostgreSQL at ${safeAddress(url)} failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await pool.end();
  }
}

export const migrateCommand: Command = { usage: USAGE, run };
