// The inbox contract (payorch/testing) on the PostgreSQL inbox, against a real server
// (test/postgres/global-setup.ts). Two pools stand for two instances of the receiver: the cases
// race them, so what keeps order is the database, not anything in this process.
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { inboxContract } from '../../src/testing/index.js';

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
  for (const contractCase of inboxContract<PostgresInboxContext<pg.PoolClient>>({
    async store() {
      made += 1;
      const table = `contract_${process.pid}_${made}`;
      tables.push(table);
      await createPostgresInboxTable({ pool: instances[0], table });
      let next = 0;
      return {
        inbox: () => createPostgresInbox({ pool: instances[(next += 1) % 2] as pg.Pool, table }),
        prune: (olderThanSeconds) => prunePostgresInbox({ pool: instances[0], table, olderThanSeconds }),
      };
    },
    // A handler that swallows a failed statement: PostgreSQL then answers COMMIT with ROLLBACK.
    failCommit: async ({ client }) => {
      await client.query('SELECT 1 / 0').catch(() => undefined);
    },
  })) {
    test(contractCase.name, contractCase.run);
  }
});
