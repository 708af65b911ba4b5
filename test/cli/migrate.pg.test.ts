// `payorch migrate` on the test PostgreSQL (docs/cli.md): the built binary, run in a merchant's
// project whose node_modules holds pg. The D1 stores, which print SQL: migrate.test.ts.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createPgBossDeadLetterTable } from '../../src/queues/pg-boss/index.js';
import { temporaryProject } from '../helpers/project.js';
import type { TemporaryProject } from '../helpers/project.js';
import { payorch } from './run.js';

const url = inject('postgresUrl');
const schema = `migrate_cli_${process.pid}`;
let admin: pg.Pool;
let project: TemporaryProject;

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  project = temporaryProject(['pg']);
});
afterAll(async () => {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  project.close();
});

const migrate = (args: readonly string[]) => payorch(['migrate', ...args, '--schema', schema], { DATABASE_URL: url }, '', project.directory);

describe('payorch migrate postgres-inbox', () => {
  test('finds a table of version 1, the one this payorch uses, current, keeping its keys, and records one made without a record; --json says the same', async () => {
    await admin.query(`CREATE TABLE ${schema}.inbox_v1 (merchant_id text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (merchant_id, tracking_code));
      INSERT INTO ${schema}.inbox_v1 (merchant_id, tracking_code, statuses, record_time) VALUES ('shop', 'MAN-cli00001-1763812000', '{completed}', 1763812000)`);
    expect(await migrate(['postgres-inbox', '--table', 'inbox_v1'])).toEqual({ code: 0, stdout: `"${schema}"."inbox_v1" is at version 1 already: nothing to do.\n`, stderr: '' });
    expect((await admin.query(`SELECT version FROM ${schema}.payorch_schema WHERE table_name = 'inbox_v1'`)).rows).toEqual([{ version: 1 }]);
    expect((await admin.query(`SELECT merchant_id, tracking_code FROM ${schema}.inbox_v1`)).rows).toEqual([{ merchant_id: 'shop', tracking_code: 'MAN-cli00001-1763812000' }]);
    const json = await migrate(['postgres-inbox', '--table', 'fresh_inbox', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ table: `"${schema}"."fresh_inbox"`, from: null, to: 1 });
  });

  test('refuses a table of a shape no release made (the merchant in account) with exit 1, changing nothing', async () => {
    await admin.query(`CREATE TABLE ${schema}.inbox_account (account text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code))`);
    const run = await migrate(['postgres-inbox', '--table', 'inbox_account']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`payorch migrate: payorch/postgres: "${schema}"."inbox_account" (the inbox table of payorch/postgres) matches no version payorch made (version 1;`);
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${schema}.payorch_schema WHERE table_name = 'inbox_account'`)).rows).toEqual([{ n: 0 }]);
  });

  test('refuses a table of a later version with exit 1 and the versions, changing nothing', async () => {
    await createPgBossDeadLetterTable({ pool: admin, table: `${schema}.dead_later` });
    await admin.query(`UPDATE ${schema}.payorch_schema SET version = 5 WHERE table_name = 'dead_later'`);
    const run = await migrate(['pg-boss-dead-letters', '--table', 'dead_later']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`payorch migrate: payorch/pg-boss: "${schema}"."dead_later" (the dead letters' table of payorch/pg-boss) is at version 5, which a later payorch migrated it to; this payorch knows version 1.`);
    expect((await admin.query(`SELECT version FROM ${schema}.payorch_schema WHERE table_name = 'dead_later'`)).rows).toEqual([{ version: 5 }]);
  });
});
