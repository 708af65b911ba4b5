import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createCallbackReceiver, InboxCommitError, isPayorchError, signCallback } from '../../src/index.js';
import type { CallbackErrorDetails, CallbackReceiver } from '../../src/index.js';
import { postgresInboxTableSql, createPostgresInboxTable, createPostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deferred, deliver, serveNode } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';
import { pastTheGuard } from './past-the-guard.js';

// Against a real PostgreSQL (test/postgres/global-setup.ts). Two pools stand for two instances
// of the merchant's receiver behind a load balancer.

type Context = PostgresInboxContext<pg.PoolClient>;
const OK = { status: 200, body: { success: true } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
const table = `inbox_${process.pid}`;
const balances = `balances_${process.pid}`;

const pools: pg.Pool[] = [];
let admin: pg.Pool;
const served: Served[] = [];

function pool(): pg.Pool {
  const created = new pg.Pool({ connectionString: inject('postgresUrl'), max: 4 });
  // What an application does with its pool: an idle client's broken connection is logged, not fatal.
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

async function startInstance(credit: (callback: { payload: { user_id?: string | undefined; amount: number } }, context: Context) => Promise<void>) {
  const receiver: CallbackReceiver<Context> = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(), table }), onError: () => undefined });
  receiver.on('deposit.completed', credit);
  const instance = await serveNode(receiver.nodeHandler);
  served.push(instance);
  return instance.url;
}

async function balance(user: string): Promise<number | undefined> {
  const { rows } = await admin.query<{ amount: string }>(`SELECT amount FROM ${balances} WHERE user_id = $1`, [user]);
  return rows[0] === undefined ? undefined : Number(rows[0].amount);
}

async function keys(trackingCode: string): Promise<string[]> {
  const { rows } = await admin.query<{ status: string }>(`SELECT unnest(statuses) AS status FROM ${table} WHERE tracking_code = $1`, [trackingCode]);
  return rows.map((row) => row.status);
}

const creditBalance = async (callback: { payload: { user_id?: string | undefined; amount: number } }, { client }: Context): Promise<void> => {
  await client.query(`UPDATE ${balances} SET amount = amount + $1 WHERE user_id = $2`, [callback.payload.amount, callback.payload.user_id]);
};

function deposit(trackingCode: string, user: string) {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode, user_id: user, amount: 250 }, PROVIDER);
}

beforeAll(async () => {
  admin = pool();
  await createPostgresInboxTable({ pool: admin, table });
  await admin.query(`CREATE TABLE ${balances} (user_id text PRIMARY KEY, amount numeric NOT NULL)`);
});
afterAll(async () => {
  await admin.query(`DROP TABLE IF EXISTS ${table}, ${balances}`);
  await Promise.all(pools.map((each) => each.end()));
});
afterEach(async () => {
  await Promise.all(served.splice(0).map((each) => each.close()));
});

async function account(user: string): Promise<void> {
  await admin.query(`INSERT INTO ${balances} (user_id, amount) VALUES ($1, 0)`, [user]);
}

describe('the PostgreSQL inbox', () => {
  test('applies a callback once when two instances with two pools get copies at the same time', async () => {
    await account('u-together');
    const gate = deferred();
    const started = vi.fn();
    const slowCredit = async (callback: Parameters<typeof creditBalance>[0], context: Context) => {
      started();
      await creditBalance(callback, context);
      // Holds the transaction open so that every copy arrives while it is under way.
      await gate.promise;
    };
    const [first, second] = [await startInstance(slowCredit), await startInstance(slowCredit)];
    const delivery = deposit('MAN-together01-1763812000', 'u-together');
    const answers = Promise.all([deliver(first, delivery), deliver(second, delivery), deliver(first, delivery), deliver(second, delivery)]);
    await vi.waitFor(() => { expect(started).toHaveBeenCalled(); });
    // The other copies are blocked on the key's insert; give them time to get there.
    await vi.waitFor(async () => {
      const { rows } = await admin.query<{ waiting: string }>(`SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO %"${table}"%'`);
      expect(Number(rows[0]!.waiting)).toBe(3);
    });
    gate.resolve();
    expect(await answers).toEqual([OK, OK, OK, OK]);
    expect(started).toHaveBeenCalledTimes(1);
    expect(await balance('u-together')).toBe(250);
    expect(await keys('MAN-together01-1763812000')).toEqual(['completed']);
  });

  test('a handler that throws commits nothing, key included, and the redelivery applies it once', async () => {
    await account('u-throws');
    let fail = true;
    const url = await startInstance(async (callback, context) => {
      await creditBalance(callback, context);
      if (fail) throw new Error('the ledger refused');
    });
    const delivery = deposit('MAN-throws02-1763812000', 'u-throws');
    expect(await deliver(url, delivery)).toEqual(NOT_APPLIED);
    expect(await balance('u-throws')).toBe(0);
    expect(await keys('MAN-throws02-1763812000')).toEqual([]);
    fail = false;
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(await balance('u-throws')).toBe(250);
  });

  test('a connection killed between the key and the end of the handler’s work leaves neither, and the redelivery applies it', async () => {
    await account('u-crash');
    const killed = deferred();
    let crash = true;
    const url = await startInstance(async (callback, context) => {
      if (crash) {
        crash = false;
        const { rows } = await context.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // The key is inserted and half the work done when the backend dies.
        await creditBalance(callback, context);
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        killed.resolve();
      }
      await context.client.query(`INSERT INTO ${balances} (user_id, amount) VALUES ($1, 0) ON CONFLICT DO NOTHING`, ['audit-' + callback.payload.user_id!]);
      await creditBalance(callback, context);
    });
    const delivery = deposit('MAN-crash03-1763812000', 'u-crash');
    expect(await deliver(url, delivery)).toEqual(NOT_APPLIED);
    await killed.promise;
    expect(await balance('u-crash')).toBe(0);
    expect(await balance('audit-u-crash')).toBeUndefined();
    expect(await keys('MAN-crash03-1763812000')).toEqual([]);
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(await balance('u-crash')).toBe(250);
    expect(await balance('audit-u-crash')).toBe(0);
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(await balance('u-crash')).toBe(250);
  });

  test('a handler that swallows a statement failed on lock_timeout gets a 500 and onError, never a 200, and the redelivery to another instance applies once', async () => {
    await account('u-swallow');
    const audit = `audit_${process.pid}`;
    await admin.query(`CREATE TABLE ${audit} (tracking_code text PRIMARY KEY)`);
    const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
    // The audit row is not essential, so the handler catches its failure: PostgreSQL still
    // aborted the transaction, credit and key included, so the inbox's COMMIT cannot commit it.
    const creditAndAudit = async (callback: Parameters<typeof creditBalance>[0] & { payload: { tracking_code: string } }, context: Context) => {
      await creditBalance(callback, context);
      await context.client.query(`INSERT INTO ${audit} (tracking_code) VALUES ($1)`, [callback.payload.tracking_code]).catch(() => undefined);
    };
    const urls: string[] = [];
    for (let instance = 0; instance < 2; instance += 1) {
      const receiver: CallbackReceiver<Context> = createCallbackReceiver({
        ...PROVIDER,
        inbox: createPostgresInbox({ pool: pool(), table, lockTimeoutMs: 200 }),
        onError: (error, details) => void heard.push({ error, details }),
      });
      receiver.on('deposit.completed', creditAndAudit);
      const listening = await serveNode(receiver.nodeHandler);
      served.push(listening);
      urls.push(listening.url);
    }
    const trackingCode = 'MAN-swallow08-1763812000';
    const delivery = deposit(trackingCode, 'u-swallow');
    // Another transaction of the application holds the audit row, under load, past lockTimeoutMs.
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO ${audit} (tracking_code) VALUES ($1)`, [trackingCode]);
      expect(await deliver(urls[0]!, delivery)).toEqual(NOT_APPLIED);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
    }
    expect(heard).toHaveLength(1);
    expect(heard[0]?.details.phase).toBe('inbox');
    expect(isPayorchError(heard[0]?.error, InboxCommitError)).toBe(true);
    expect(String(heard[0]?.error)).toContain(`a statement of the transaction of ${trackingCode} (completed) failed, and a handler caught its error`);
    expect(await balance('u-swallow')).toBe(0);
    expect(await keys(trackingCode)).toEqual([]);
    expect(await deliver(urls[1]!, delivery)).toEqual(OK);
    expect(await deliver(urls[0]!, delivery)).toEqual(OK);
    expect(await balance('u-swallow')).toBe(250);
    expect((await admin.query(`SELECT tracking_code FROM ${audit}`)).rows).toEqual([{ tracking_code: trackingCode }]);
    expect(heard).toHaveLength(1);
    await admin.query(`DROP TABLE ${audit}`);
  });

  test('a shop’s helper that runs its own BEGIN … COMMIT, and ROLLBACK on a failure, on the handler’s client is refused, even when the handler catches it: a 500 and onError, never a 200, and nothing written however often it is delivered; the redelivery through a savepoint credits 250 once', async () => {
    await account('u-helper');
    const ledger = `helper_ledger_${process.pid}`;
    await admin.query(`CREATE TABLE ${ledger} (tracking_code text NOT NULL, amount numeric NOT NULL)`);
    const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
    // The shop's existing helper, given the handler's client: a transaction of its own, rolled back
    // on a failure. On the inbox's transaction its ROLLBACK would end it, key and credit, and what
    // the handler wrote after it would commit on its own, once per delivery.
    const ownTransaction = async (client: pg.PoolClient, work: () => Promise<unknown>): Promise<void> => {
      await client.query('BEGIN');
      try {
        await work();
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    };
    // The pattern the guide teaches: a savepoint inside the inbox's transaction.
    const savepoint = async (client: pg.PoolClient, work: () => Promise<unknown>): Promise<void> => {
      await client.query('SAVEPOINT helper');
      try {
        await work();
        await client.query('RELEASE SAVEPOINT helper');
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT helper');
        throw error;
      }
    };
    let helper = ownTransaction;
    const receiver: CallbackReceiver<Context> = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(), table }), onError: (error, details) => void heard.push({ error, details }) });
    receiver.on('deposit.completed', async (callback, context) => {
      await creditBalance(callback, context);
      // A step that fails, its error logged and swallowed, then the ledger's line.
      await helper(context.client, () => context.client.query('SELECT 1 / 0')).catch(() => undefined);
      await helper(context.client, () => context.client.query(`INSERT INTO ${ledger} VALUES ($1, $2)`, [callback.payload.tracking_code, callback.payload.amount])).catch(() => undefined);
    });
    const listening = await serveNode(receiver.nodeHandler);
    served.push(listening);
    const trackingCode = 'MAN-helper09-1763812000';
    const delivery = deposit(trackingCode, 'u-helper');
    const lines = async (): Promise<number> => (await admin.query(`SELECT * FROM ${ledger}`)).rowCount ?? 0;
    for (let attempt = 0; attempt < 3; attempt++) expect(await deliver(listening.url, delivery)).toEqual(NOT_APPLIED);
    expect({ balance: await balance('u-helper'), ledger: await lines(), keys: await keys(trackingCode) }).toEqual({ balance: 0, ledger: 0, keys: [] });
    expect(heard).toHaveLength(3);
    for (const { error, details } of heard) {
      expect(details.phase).toBe('inbox');
      expect(isPayorchError(error, InboxCommitError)).toBe(true);
      expect(String(error)).toContain(`a handler sent BEGIN on the inbox's client while applying ${trackingCode} (completed), and the inbox refused it`);
      expect(String(error)).toContain('not applied, so that it is delivered again');
    }
    helper = savepoint;
    expect(await deliver(listening.url, delivery)).toEqual(OK);
    expect(await deliver(listening.url, delivery)).toEqual(OK);
    expect({ balance: await balance('u-helper'), ledger: await lines(), keys: await keys(trackingCode) }).toEqual({ balance: 250, ledger: 1, keys: ['completed'] });
    expect(heard).toHaveLength(3);
    await admin.query(`DROP TABLE ${ledger}`);
  });

  test('a handler’s own COMMIT, or COMMIT then BEGIN, is refused before it reaches PostgreSQL: the credit after it is not kept apart from the key, and onError is told (phase inbox) though the handler threw the refusal', async () => {
    await account('u-commit');
    const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
    const receiver: CallbackReceiver<Context> = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(), table }), onError: (error, details) => void heard.push({ error, details }) });
    receiver.on('deposit.completed', async (callback, context) => {
      // Before, the COMMIT recorded the key alone and the credit after it was rolled back: a
      // payment never applied, its redelivery a duplicate.
      await context.client.query('COMMIT; BEGIN');
      await creditBalance(callback, context);
    });
    const listening = await serveNode(receiver.nodeHandler);
    served.push(listening);
    const trackingCode = 'MAN-commit11-1763812000';
    const delivery = deposit(trackingCode, 'u-commit');
    expect(await deliver(listening.url, delivery)).toEqual(NOT_APPLIED);
    expect(await deliver(listening.url, delivery)).toEqual(NOT_APPLIED);
    expect({ balance: await balance('u-commit'), keys: await keys(trackingCode) }).toEqual({ balance: 0, keys: [] });
    expect(heard.map(({ details }) => details.phase)).toEqual(['inbox', 'inbox']);
    expect(String(heard[0]?.error)).toContain(`a handler sent COMMIT on the inbox's client while applying ${trackingCode} (completed)`);
    expect((heard[0]?.error as Error).cause).toEqual(expect.objectContaining({ name: 'InboxError', message: expect.stringContaining('refused COMMIT on the inbox\'s client') }));
  });

  test('a handler that commits the key itself past the guard (pg’s own query, as a library holding it may call it) and then throws gets a 500 saying the key is recorded and the handlers after it did not run; its redelivery is a duplicate', async () => {
    await account('u-selfcommit');
    const heard: { error: unknown; details: CallbackErrorDetails }[] = [];
    const receiver: CallbackReceiver<Context> = createCallbackReceiver({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(), table }), onError: (error, details) => void heard.push({ error, details }) });
    const after = vi.fn(() => Promise.resolve());
    receiver.on('deposit.completed', async (callback, context) => {
      await pastTheGuard(context.client, 'BEGIN');
      await creditBalance(callback, context);
      await pastTheGuard(context.client, 'COMMIT');
      throw new Error('the notification service is down');
    });
    receiver.on('deposit.completed', after);
    const listening = await serveNode(receiver.nodeHandler);
    served.push(listening);
    const trackingCode = 'MAN-selfcommit10-1763812000';
    const delivery = deposit(trackingCode, 'u-selfcommit');
    expect(await deliver(listening.url, delivery)).toEqual(NOT_APPLIED);
    expect(heard).toHaveLength(1);
    expect(isPayorchError(heard[0]?.error, InboxCommitError)).toBe(true);
    expect(String(heard[0]?.error)).toContain(`a handler committed the transaction of ${trackingCode} (completed) itself`);
    expect(String(heard[0]?.error)).toContain('the key is recorded and the handlers after it did not run. The redelivery is a duplicate and runs nothing');
    expect((heard[0]?.error as Error).cause).toEqual(new Error('the notification service is down'));
    expect(await keys(trackingCode)).toEqual(['completed']);
    expect(await balance('u-selfcommit')).toBe(250);
    expect(await deliver(listening.url, delivery)).toEqual(OK);
    expect(after).not.toHaveBeenCalled();
    expect(await balance('u-selfcommit')).toBe(250);
  });

  test('another instance answers 200 to a redelivery applied by the first, without running its handlers', async () => {
    await account('u-later');
    const secondHandler = vi.fn(creditBalance);
    const first = await startInstance(creditBalance);
    const second = await startInstance(secondHandler);
    const delivery = deposit('MAN-later04-1763812000', 'u-later');
    expect(await deliver(first, delivery)).toEqual(OK);
    expect(await deliver(second, delivery)).toEqual(OK);
    expect(secondHandler).not.toHaveBeenCalled();
    expect(await balance('u-later')).toBe(250);
  });

  test('each pool client goes back to its pool, also after failures', async () => {
    const own = pool();
    const inbox = createPostgresInbox({ pool: own, table });
    await inbox.process({ merchantId: 'acct', trackingCode: 'MAN-pool05-1', status: 'completed' }, () => Promise.resolve());
    await inbox.process({ merchantId: 'acct', trackingCode: 'MAN-pool05-1', status: 'completed' }, () => Promise.resolve());
    await expect(inbox.process({ merchantId: 'acct', trackingCode: 'MAN-pool05-2', status: 'completed' }, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(own.totalCount - own.idleCount).toBe(0);
  });

  test('prepares its claim once per connection, named by a digest of its text: one name per table, the same in every process', async () => {
    const other = `inbox_other_${process.pid}`;
    await createPostgresInboxTable({ pool: admin, table: other });
    const names = async (onTable: string): Promise<string[]> => {
      const one = new pg.Pool({ connectionString: inject('postgresUrl'), max: 1 });
      try {
        const inbox = createPostgresInbox({ pool: one, table: onTable });
        for (const code of ['MAN-named06-1763812000', 'MAN-named07-1763812000']) await inbox.process({ merchantId: 'acct', trackingCode: code, status: 'completed' }, () => Promise.resolve());
        const { rows } = await one.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
        return rows.map((row) => row.name);
      } finally {
        await one.end();
      }
    };
    const [first, again, onOther] = [await names(table), await names(table), await names(other)];
    await admin.query(`DROP TABLE ${other}`);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^payorch_claim_[0-9a-f]{32}$/);
    expect(again).toEqual(first);
    expect(onOther).toHaveLength(1);
    expect(onOther).not.toEqual(first);
  });
});

describe('the inbox table', () => {
  test('postgresInboxTableSql gives the documented table', () => {
    expect(postgresInboxTableSql()).toBe(
      [
        'CREATE TABLE IF NOT EXISTS payorch_schema (table_name text PRIMARY KEY, component text NOT NULL, version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now());',
        `INSERT INTO payorch_schema (table_name, component, version) SELECT 'payorch_callback_inbox', 'callback-inbox', 1 WHERE to_regclass('"payorch_callback_inbox"') IS NULL ON CONFLICT (table_name) DO UPDATE SET component = EXCLUDED.component, version = EXCLUDED.version, migrated_at = now();`,
        'CREATE TABLE IF NOT EXISTS "payorch_callback_inbox" (',
        '  merchant_id text NOT NULL,',
        '  tracking_code text NOT NULL,',
        '  statuses text[] NOT NULL,',
        '  record_time bigint NOT NULL,',
        '  applied_at timestamptz NOT NULL DEFAULT now(),',
        '  PRIMARY KEY (merchant_id, tracking_code)',
        ');',
        'CREATE INDEX IF NOT EXISTS "payorch_callback_inbox_record_time" ON "payorch_callback_inbox" (record_time, merchant_id, tracking_code)',
      ].join('\n'),
    );
    expect(postgresInboxTableSql('billing.inbox')).toMatch(/^CREATE TABLE IF NOT EXISTS "billing".payorch_schema /);
    expect(postgresInboxTableSql('billing.inbox')).toMatch(/\nCREATE INDEX IF NOT EXISTS "inbox_record_time" ON "billing"."inbox" \(record_time, merchant_id, tracking_code\)$/);
  });

  test('createPostgresInboxTable may run more than once', async () => {
    await createPostgresInboxTable({ pool: admin, table });
    await createPostgresInboxTable({ pool: admin, table });
    expect(await keys('nothing')).toEqual([]);
  });

  test.each(['inbox; DROP TABLE x', 'a.b.c', '"quoted"', '', '1abc'])('refuses the table name %j', (name) => {
    expect(() => createPostgresInbox({ pool: admin, table: name })).toThrow(/table: must be a name of letters, digits and _ \(up to 63\), optionally schema\.table; got /);
  });
});
