// The inbox contract (payorch/testing) on the PostgreSQL inbox, against a real server
// (test/postgres/global-setup.ts), directly and behind a real PgBouncer in transaction pooling
// (test/postgres/bouncer.ts). Two pools stand for two instances of the receiver: the cases race
// them, so what keeps order is the database, not anything in this process.
import pg from 'pg';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { inboxContract } from '../../src/testing/index.js';
import type { InboxContractStore } from '../../src/testing/index.js';
import { startBouncer } from './bouncer.js';
import { pastTheGuard } from './past-the-guard.js';
import { POSTGRES_INBOX_TABLE } from '../../src/inboxes/postgres/table.js';
import { addLaterVersion } from '../helpers/later-version.js';
import type { Bouncer } from './bouncer.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const tables: string[] = [];
// What handlers write on their own after they ended the inbox's transaction.
const writes = `contract_writes_${process.pid}`;
let admin: pg.Pool;
let bouncer: Bouncer | undefined;
const pools: pg.Pool[] = [];

function pool(url: string): pg.Pool {
  const created = new pg.Pool({ connectionString: url, max: 4 });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

// The contract's earlier table is version 1, to which the inbox is then given a later version of these
// tests' own to migrate to (test/helpers/later-version.ts), taken back for the other cases.
let takeBack: (() => void) | undefined;

beforeAll(async () => {
  admin = pool(inject('postgresUrl'));
  await admin.query(`CREATE TABLE ${writes} (note text NOT NULL)`);
});
afterAll(async () => {
  takeBack?.();
  await admin.query(`DROP TABLE IF EXISTS ${[...tables, writes].join(', ')}`);
  await Promise.all(pools.map((each) => each.end()));
  await bouncer?.stop();
});

function contract(where: string, url: () => Promise<string>): void {
  let instances: [pg.Pool, pg.Pool] | undefined;
  let made = 0;
  const fresh = (): string => {
    made += 1;
    const table = `contract_${where}_${process.pid}_${made}`;
    tables.push(table);
    return table;
  };
  const pair = async (): Promise<[pg.Pool, pg.Pool]> => {
    if (instances === undefined) {
      const at = await url();
      instances = [pool(at), pool(at)];
    }
    return instances;
  };
  const storeOf = async (table: string): Promise<InboxContractStore<Context>> => {
    const [one, two] = await pair();
    let next = 0;
    return {
      inbox: () => createPostgresInbox({ pool: (next += 1) % 2 === 0 ? one : two, table }),
      prune: (olderThanSeconds) => prunePostgresInbox({ pool: one, table, olderThanSeconds }),
    };
  };
  for (const contractCase of inboxContract<Context>({
    async store() {
      const table = fresh();
      await createPostgresInboxTable({ pool: admin, table });
      return storeOf(table);
    },
    // A handler that swallows a failed statement: PostgreSQL aborts the transaction anyway.
    failCommit: async ({ client }) => {
      await client.query('SELECT 1 / 0').catch(() => undefined);
    },
    // A shop's helper that opens and closes a transaction of its own on the client it is given.
    endTransaction: {
      rollback: {
        "a helper's BEGIN, a failed statement caught, and its ROLLBACK": async ({ client }) => {
          await client.query('BEGIN');
          await client.query('SELECT 1 / 0').catch(() => undefined);
          await client.query('ROLLBACK');
        },
        'a PREPARE TRANSACTION that failed, its error caught': async ({ client }) => {
          // max_prepared_transactions is 0: the PREPARE fails, and becomes a ROLLBACK.
          await client.query("PREPARE TRANSACTION 'payorch_contract'").catch(() => undefined);
        },
        'a ROLLBACK, then a write of its own': async ({ client }) => {
          await client.query('ROLLBACK');
          await client.query(`INSERT INTO ${writes} (note) VALUES ('after a rollback')`);
        },
        'a ROLLBACK, then a BEGIN and a write left open': async ({ client }) => {
          await client.query('ROLLBACK');
          await client.query('BEGIN');
          await client.query(`INSERT INTO ${writes} (note) VALUES ('in a transaction of its own')`);
        },
        // Past the inbox's refusal, as a library holding pg's own query may send them: found at COMMIT.
        "pg's own query: a ROLLBACK, then a write of its own": async ({ client }) => {
          await pastTheGuard(client, 'ROLLBACK');
          await pastTheGuard(client, `INSERT INTO ${writes} (note) VALUES ('after a rollback past the guard')`);
        },
        "pg's own query: a ROLLBACK, then a BEGIN and a write left open": async ({ client }) => {
          await pastTheGuard(client, 'ROLLBACK');
          await pastTheGuard(client, 'BEGIN');
          await pastTheGuard(client, `INSERT INTO ${writes} (note) VALUES ('in a transaction of its own, past the guard')`);
        },
      },
      // Refused through the client (inbox.pg.test.ts): past the guard, the COMMIT happens.
      commit: async ({ client }) => {
        await pastTheGuard(client, 'BEGIN');
        await pastTheGuard(client, `INSERT INTO ${writes} (note) VALUES ('committed by a handler')`);
        await pastTheGuard(client, 'COMMIT');
      },
    },
    versions: {
      // Version 1 as this payorch makes it, unrecorded (known by its columns).
      async earlier(applied) {
        const table = fresh();
        await admin.query(`CREATE TABLE ${table} (merchant_id text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (merchant_id, tracking_code))`);
        for (const key of applied) {
          await admin.query(`INSERT INTO ${table} (merchant_id, tracking_code, statuses, record_time) VALUES ($1, $2, ARRAY[$3], $4)`, [key.merchantId, key.trackingCode, key.status, key.recordTime]);
        }
        const instancesOf = await pair();
        // Once, however often this runs (a filtered run may skip the cases that take it back).
        takeBack?.();
        takeBack = addLaterVersion(POSTGRES_INBOX_TABLE, 'text');
        return { ...(await storeOf(table)), migrate: () => createPostgresInboxTable({ pool: instancesOf[(made += 1) % 2] as pg.Pool, table }) };
      },
      async later() {
        takeBack?.();
        const table = fresh();
        await createPostgresInboxTable({ pool: admin, table });
        await admin.query('UPDATE payorch_schema SET version = 99 WHERE table_name = $1', [table]);
        return storeOf(table);
      },
      async altered() {
        takeBack?.();
        const table = fresh();
        await createPostgresInboxTable({ pool: admin, table });
        await admin.query(`ALTER TABLE ${table} ADD COLUMN reason text NOT NULL DEFAULT ''`);
        return storeOf(table);
      },
    },
  })) {
    test(contractCase.name, contractCase.run);
  }
}

describe('the inbox contract, on the PostgreSQL inbox', () => {
  contract('direct', () => Promise.resolve(inject('postgresUrl')));
});

describe('the inbox contract, on the PostgreSQL inbox behind PgBouncer in transaction pooling', () => {
  contract('bouncer', async () => {
    // Fewer server connections than clients, so that clients share them between transactions.
    bouncer ??= await startBouncer({ serverUrl: inject('postgresUrl'), poolMode: 'transaction', poolSize: 2 });
    return bouncer.url;
  });
});
