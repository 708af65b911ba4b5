// The inbox contract (payorch/testing) on the PostgreSQL inbox, against a real server
// (test/postgres/global-setup.ts). Two pools stand for two instances of the receiver: the cases
// race them, so what keeps order is the database, not anything in this process.
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { inboxContract } from '../../src/testing/index.js';
import type { InboxContractStore } from '../../src/testing/index.js';

const tables: string[] = [];
let instances: [pg.Pool, pg.Pool];

beforeAll(() => {
  instances = [0, 1].map(() => {
    const pool = new pg.Pool({ connectionString: inject('postgresUrl'), max: 4 });
    pool.on('error', () => undefined);
    return pool;
  }) as [pg.Pool, pg.Pool];
});
afterAll(async () => {
  if (tables.length > 0) await instances[0].query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
  await Promise.all(instances.map((pool) => pool.end()));
});

describe('the inbox contract, on the PostgreSQL inbox', () => {
  let made = 0;
  const fresh = (): Promise<string> => {
    made += 1;
    const table = `contract_${process.pid}_${made}`;
    tables.push(table);
    return Promise.resolve(table);
  };
  const storeOf = (table: string): InboxContractStore<PostgresInboxContext<pg.PoolClient>> => {
    let next = 0;
    return {
      inbox: () => createPostgresInbox({ pool: instances[(next += 1) % 2] as pg.Pool, table }),
      prune: (olderThanSeconds) => prunePostgresInbox({ pool: instances[0], table, olderThanSeconds }),
    };
  };
  for (const contractCase of inboxContract<PostgresInboxContext<pg.PoolClient>>({
    async store() {
      const table = await fresh();
      await createPostgresInboxTable({ pool: instances[0], table });
      return storeOf(table);
    },
    // A handler that swallows a failed statement: PostgreSQL then answers COMMIT with ROLLBACK.
    failCommit: async ({ client }) => {
      await client.query('SELECT 1 / 0').catch(() => undefined);
    },
    versions: {
      // Version 1, as a payorch before payorch_schema made it: no record, the merchant in `account`.
      async earlier(applied) {
        const table = await fresh();
        await instances[0].query(`CREATE TABLE ${table} (account text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code))`);
        for (const key of applied) {
          await instances[0].query(`INSERT INTO ${table} (account, tracking_code, statuses, record_time) VALUES ($1, $2, ARRAY[$3], $4)`, [key.merchantId, key.trackingCode, key.status, key.recordTime]);
        }
        return { ...storeOf(table), migrate: () => createPostgresInboxTable({ pool: instances[(made += 1) % 2] as pg.Pool, table }) };
      },
      async later() {
        const table = await fresh();
        await createPostgresInboxTable({ pool: instances[0], table });
        await instances[0].query('UPDATE payorch_schema SET version = version + 1 WHERE table_name = $1', [table]);
        return storeOf(table);
      },
      async altered() {
        const table = await fresh();
        await createPostgresInboxTable({ pool: instances[0], table });
        await instances[0].query(`ALTER TABLE ${table} ADD COLUMN note text NOT NULL DEFAULT ''`);
        return storeOf(table);
      },
    },
  })) {
    test(contractCase.name, contractCase.run);
  }
});
