import { describe, expect, test } from 'vitest';
import { RequestValidationError } from '../../src/errors/error.js';
import { createPgBossDeadLetterTable, createPgBossQueue, pgBossDeadLetterTableSql } from '../../src/queues/pg-boss/index.js';
import type { PgBossLike } from '../../src/queues/pg-boss/index.js';
import type { PostgresPool } from '../../src/inboxes/postgres/index.js';

// What payorch/pg-boss refuses before it touches pg-boss or PostgreSQL: each bad setting named,
// with its range. The pool and the boss below fail the test if anything reaches them.
const untouched = (): never => {
  throw new Error('reached the database');
};
const pool: PostgresPool = { connect: untouched };
const boss: PgBossLike = { createQueue: untouched, updateQueue: untouched, send: untouched, work: untouched, offWork: untouched, getQueue: untouched };

function refusal(run: () => unknown): { field: string; message: string } | undefined {
  try {
    run();
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    return { field: error.issues[0]?.field ?? '', message: error.message };
  }
  return undefined;
}

async function refusalOf(run: () => Promise<unknown>): Promise<{ field: string; message: string } | undefined> {
  const error: unknown = await run().then(() => undefined, (caught: unknown) => caught);
  if (error === undefined) return undefined;
  if (!(error instanceof RequestValidationError)) throw error as Error;
  return { field: error.issues[0]?.field ?? '', message: error.message };
}

describe('createPgBossQueue', () => {
  test.each([
    ['no boss', { pool }, 'boss', /must be a started PgBoss of pg-boss 12/],
    ['a boss without work', { boss: { ...boss, work: undefined }, pool }, 'boss', /must be a started PgBoss/],
    ['no pool', { boss }, 'pool', /must be a node-postgres Pool/],
    ['a queue name pg-boss refuses', { boss, pool, queue: 'payorch callbacks' }, 'queue', /letters, digits, _, -, \. and \//],
    ['a table name that is SQL', { boss, pool, table: 'dead; DROP TABLE x' }, 'table', /letters, digits and _/],
    ['a negative retries', { boss, pool, retries: -1 }, 'retries', /an integer from 0 to 100; got -1/],
    ['the old name retryLimit', { boss, pool, retryLimit: 3 }, 'retryLimit', /was renamed retries: pass its value as retries/],
    ['a fractional retryDelaySeconds', { boss, pool, retryDelaySeconds: 1.5 }, 'retryDelaySeconds', /an integer from 0 to 86400; got 1.5/],
    ['a retryBackoff that is text', { boss, pool, retryBackoff: 'yes' }, 'retryBackoff', /true or false/],
    ['an expireInSeconds of 0', { boss, pool, expireInSeconds: 0 }, 'expireInSeconds', /an integer from 1 to 86400/],
    ['a retentionSeconds under an hour', { boss, pool, retentionSeconds: 60 }, 'retentionSeconds', /from 3600/],
    ['a heartbeatSeconds pg-boss refuses', { boss, pool, heartbeatSeconds: 5 }, 'heartbeatSeconds', /an integer from 10 to 3600/],
  ])('refuses %s, naming the option', (_name, options, field, message) => {
    const refused = refusal(() => createPgBossQueue(options as never));
    expect(refused?.field).toBe(field);
    expect(refused?.message).toMatch(message);
  });

  test('refuses a retention its retries outlast, naming both options and the least retention they allow', () => {
    // The defaults' ten retries from 5 s, doubling: 10,230 s of delays at most, and 360 s for each of the 11 attempts.
    const refused = refusal(() => createPgBossQueue({ boss, pool, retentionSeconds: 3600 }));
    expect(refused?.field).toBe('retentionSeconds, retries');
    expect(refused?.message).toMatch(/retentionSeconds must outlast the retries.*at least 14190 \(retries 10, retryDelaySeconds 5 doubling, expireInSeconds 300\) up to 315360000; got 3600\. Raise retentionSeconds or lower retries/);
    expect(refusal(() => createPgBossQueue({ boss, pool, retentionSeconds: 14_190 }))).toBeUndefined();
    expect(refusal(() => createPgBossQueue({ boss, pool, retentionSeconds: 3600, retries: 5 }))).toBeUndefined();
    expect(refusal(() => createPgBossQueue({ boss, pool, retries: 100, retryDelaySeconds: 86_400 }))?.message).toMatch(/past the 315360000 allowed: lower retries/);
    expect(refusal(() => createPgBossQueue({ boss, pool, retentionSeconds: 3600, retries: 3, retryBackoff: false, retryDelaySeconds: 600, expireInSeconds: 600 }))?.message).toMatch(/at least 4440 \(retries 3, retryDelaySeconds 600, expireInSeconds 600\)/);
  });

  test('refuses work options and dead-letter calls it cannot carry out, before reaching pg-boss or PostgreSQL', async () => {
    const queue = createPgBossQueue({ boss, pool });
    const receiver = { apply: () => Promise.resolve() };
    expect(await refusalOf(() => queue.work(receiver, { pollingIntervalSeconds: 0.1 }))).toMatchObject({ field: 'pollingIntervalSeconds', message: expect.stringMatching(/from 0.5 to 600/) as unknown });
    expect(await refusalOf(() => queue.work(receiver, { localConcurrency: 0 }))).toMatchObject({ field: 'localConcurrency' });
    expect(await refusalOf(() => queue.work(receiver, { batchSize: 101 }))).toMatchObject({ field: 'batchSize', message: expect.stringMatching(/from 1 to 100/) as unknown });
    expect(await refusalOf(() => queue.work(receiver, { backlogCheckSeconds: 0 }))).toMatchObject({ field: 'backlogCheckSeconds' });
    expect(await refusalOf(() => queue.work(receiver, { meter: {} as never }))).toMatchObject({ field: 'meter' });
    expect(await refusalOf(() => queue.deadLetters.list({ limit: 0 }))).toMatchObject({ field: 'limit' });
    expect(await refusalOf(() => queue.deadLetters.list({ cursor: 'page-2' }))).toMatchObject({ field: 'cursor', message: expect.stringMatching(/the cursor of the page before/) as unknown });
    expect(await refusalOf(() => queue.deadLetters.get(''))).toMatchObject({ field: 'id' });
    expect(await refusalOf(() => queue.deadLetters.replay({ ids: [] }))).toMatchObject({ field: 'ids', message: expect.stringMatching(/from 1 to 100 dead letters' ids/) as unknown });
    expect(await refusalOf(() => queue.deadLetters.replay({ ids: ['a', 'a'] }))).toMatchObject({ field: 'ids[1]', message: expect.stringMatching(/repeats ids\[0\]/) as unknown });
    expect(await refusalOf(() => queue.deadLetters.purge({} as never))).toMatchObject({ field: '(options)', message: expect.stringMatching(/must be \{ ids \} .* or \{ before \}/) as unknown });
    expect(await refusalOf(() => queue.deadLetters.purge({ before: new Date(Number.NaN) }))).toMatchObject({ field: 'before' });
    expect(await refusalOf(() => queue.deadLetters.purge({ ids: ['a'], before: new Date() }))).toMatchObject({ field: '(options)' });
    expect(await refusalOf(() => createPgBossDeadLetterTable({ pool, schema: 'bad schema' }))).toMatchObject({ field: 'schema' });
  });
});

test('pgBossDeadLetterTableSql creates the table and its index, quoted, in the schema given', () => {
  expect(pgBossDeadLetterTableSql()).toBe(
    [
      'CREATE TABLE IF NOT EXISTS payorch_schema (table_name text PRIMARY KEY, component text NOT NULL, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now());',
      `INSERT INTO payorch_schema (table_name, component, version) SELECT 'payorch_dead_letters', 'dead-letters', 1 WHERE to_regclass('"payorch_dead_letters"') IS NULL ON CONFLICT (table_name) DO UPDATE SET component = EXCLUDED.component, version = EXCLUDED.version, migrated_at = now();`,
      'CREATE TABLE IF NOT EXISTS "payorch_dead_letters" (',
      '  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,',
      '  id text NOT NULL UNIQUE,',
      '  queue text NOT NULL,',
      '  job text NOT NULL,',
      '  attempts integer NOT NULL,',
      '  last_error text NOT NULL,',
      '  dead_at timestamptz NOT NULL DEFAULT now(),',
      '  history text',
      ');',
      'CREATE INDEX IF NOT EXISTS "payorch_dead_letters_queue" ON "payorch_dead_letters" (queue, seq)',
    ].join('\n'),
  );
  expect(pgBossDeadLetterTableSql('billing.dead')).toContain('CREATE INDEX IF NOT EXISTS "dead_queue" ON "billing"."dead" (queue, seq)');
  expect(refusal(() => pgBossDeadLetterTableSql('"; DROP'))?.field).toBe('table');
});
