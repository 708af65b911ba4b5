import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { DealerClient, applyTransferStatuses } from '../../src/index.js';
import type { TransferStatusOutcome } from '../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox } from '../../src/postgres/index.js';
import type { PostgresInboxContext } from '../../src/postgres/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL } from '../helpers/sandbox.js';

// Two instances of a merchant's scheduled sweep (two pools, two inboxes over one table) read the
// same ended transfer at the same time: the payout is marked once.

type Context = PostgresInboxContext<pg.PoolClient>;
const table = `transfer_inbox_${process.pid}`;
const payouts = `payouts_${process.pid}`;
const pools: pg.Pool[] = [];

function pool(): pg.Pool {
  const created = new pg.Pool({ connectionString: inject('postgresUrl'), max: 4 });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

let admin: pg.Pool;
beforeAll(async () => {
  admin = pool();
  await createPostgresInboxTable({ pool: admin, table });
  await admin.query(`CREATE TABLE ${payouts} (transfer_id text PRIMARY KEY, status text NOT NULL, marks integer NOT NULL DEFAULT 0)`);
});
afterAll(async () => {
  await admin.query(`DROP TABLE IF EXISTS ${table}, ${payouts}`);
  await Promise.all(pools.map((each) => each.end()));
});

test('a transfer swept by two instances at once, and again a minute later, is marked completed once', async () => {
  const sandbox = createSandbox();
  const dealer = new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, fetch: sandbox.fetch, maxRetries: 0 });
  const { eibans } = await dealer.eibans.list();
  const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 40 });
  const id = transfer.transfer_id;
  await admin.query(`INSERT INTO ${payouts} (transfer_id, status) VALUES ($1, 'pending')`, [id]);

  const instance = () => {
    const inbox = createPostgresInbox({ pool: pool(), table });
    return () =>
      applyTransferStatuses<Context>({
        dealer,
        transferIds: [id],
        inbox,
        accountName: 'dealer-main',
        onStatus: async (ended, { client }) => {
          await client.query(`UPDATE ${payouts} SET status = $1, marks = marks + 1 WHERE transfer_id = $2`, [ended.status, ended.transfer_id]);
        },
      });
  };
  const [first, second] = [instance(), instance()];
  const results = (outcomes: TransferStatusOutcome[][]) => outcomes.map((list) => list[0]?.result);

  expect(results(await Promise.all([first(), second()]))).toEqual(['pending', 'pending']);
  await sandbox.settle(id, 'completed');
  expect(results(await Promise.all([first(), second()])).sort()).toEqual(['applied', 'duplicate']);
  expect(results(await Promise.all([second(), first()]))).toEqual(['duplicate', 'duplicate']);

  const { rows } = await admin.query<{ status: string; marks: number }>(`SELECT status, marks FROM ${payouts} WHERE transfer_id = $1`, [id]);
  expect(rows).toEqual([{ status: 'completed', marks: 1 }]);
  const keys = await admin.query<{ status: string }>(`SELECT unnest(statuses) AS status FROM ${table} WHERE tracking_code = $1`, [id]);
  expect(keys.rows).toEqual([{ status: 'completed' }]);
});
