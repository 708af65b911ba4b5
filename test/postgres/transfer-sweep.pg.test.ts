import pg from 'pg';
import { afterAll, beforeAll, expect, inject, onTestFinished, test } from 'vitest';
import { DealerClient, applyTransferStatuses } from '../../src/index.js';
import type { TransferStatusOutcome } from '../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { IBAN, SANDBOX_BASE_URL } from '../helpers/sandbox.js';

// Two instances of a merchant's scheduled sweep (two pools, two inboxes over one table) read the
// same ended transfer at the same time: the payout is marked once, and a failed transfer is
// refunded once even when its created_at (unsigned, the key's record time) reads differently on
// each.

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
        merchantId: 'dealer-main',
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

/** A fetch through which the service writes `created_at` with the offset of its zone (+03:00), as one node of a rolling upgrade may. */
function withOffset(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.endsWith('/transfer-status')) return response;
    const answer = (await response.json()) as { transfer: { created_at: string } };
    answer.transfer.created_at = `${answer.transfer.created_at}+03:00`;
    return Response.json(answer, { status: response.status, headers: response.headers });
  };
}

test('a failed transfer whose created_at is written with an offset on one read and without on another, swept by two instances, is refunded once', async () => {
  // A seed of its own: a transfer id the other test does not use. The service on a real socket.
  const sandbox = createSandbox({ seed: 'created-at-forms' });
  const running = await sandbox.listen({ port: 0, host: '127.0.0.1' });
  onTestFinished(() => running.close());
  const dealerOf = (fetch: typeof globalThis.fetch) => new DealerClient({ baseUrl: running.url, ...sandbox.accounts.dealer, fetch, maxRetries: 0 });
  const dealer = dealerOf(globalThis.fetch);
  const { eibans } = await dealer.eibans.list();
  const { transfer } = await dealer.transfers.send({ wallet_id: eibans[0]!.wallet_id, recipient_iban: IBAN, recipient_name: 'Ada Yılmaz', amount: 40 });
  const id = transfer.transfer_id;
  await admin.query(`INSERT INTO ${payouts} (transfer_id, status) VALUES ($1, 'pending')`, [id]);
  await sandbox.settle(id, 'failed');

  const seen: string[] = [];
  const instance = (fetch: typeof globalThis.fetch) => {
    const inbox = createPostgresInbox({ pool: pool(), table });
    return () =>
      applyTransferStatuses<Context>({
        dealer: dealerOf(fetch),
        transferIds: [id],
        inbox,
        merchantId: 'dealer-main',
        onStatus: async (ended, { client }) => {
          seen.push(ended.created_at ?? '');
          // The refund: the amount goes back to the customer's balance.
          await client.query(`UPDATE ${payouts} SET status = $1, marks = marks + 1 WHERE transfer_id = $2`, [ended.status, ended.transfer_id]);
        },
      });
  };
  const [plain, offset] = [instance(globalThis.fetch), instance(withOffset(globalThis.fetch))];
  const results = (outcomes: TransferStatusOutcome[][]) => outcomes.map((list) => list[0]?.result);

  expect(results(await Promise.all([plain(), offset()])).sort()).toEqual(['applied', 'duplicate']);
  expect(results(await Promise.all([offset(), plain()]))).toEqual(['duplicate', 'duplicate']);
  expect(results([await offset()])).toEqual(['duplicate']);

  expect(seen).toHaveLength(1);
  const { rows } = await admin.query<{ status: string; marks: number }>(`SELECT status, marks FROM ${payouts} WHERE transfer_id = $1`, [id]);
  expect(rows).toEqual([{ status: 'failed', marks: 1 }]);
  const keys = await admin.query<{ statuses: string[] }>(`SELECT statuses FROM ${table} WHERE tracking_code = $1`, [id]);
  expect(keys.rows).toEqual([{ statuses: ['failed'] }]);
});
