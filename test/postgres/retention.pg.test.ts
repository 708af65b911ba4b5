// Retention of the PostgreSQL inbox (docs/webhooks.md, "Retention"): keys are pruned by the age of
// their record, and a callback of a record at or before the stored horizon whose key is not held is
// refused, never applied again. Against a real server (test/postgres/global-setup.ts).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { CallbackRetentionError, createCallbackReceiver, isPayorchError, signCallback } from '../../src/index.js';
import type { CallbackErrorDetails } from '../../src/index.js';
import { createCallbackInboxTable, createPostgresInbox, pruneCallbackInbox } from '../../src/postgres/index.js';
import type { PostgresClient, PostgresInboxContext, PostgresPool } from '../../src/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deferred, deliver, serveNode } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const OK = { status: 200, body: { success: true } };
const TOO_OLD = { status: 422, body: { success: false, error: 'record_too_old' } };
const DAY = 86_400;
const pools: pg.Pool[] = [];
const served: Served[] = [];
const tables: string[] = [];
let admin: pg.Pool;

function pool(): pg.Pool {
  const created = new pg.Pool({ connectionString: inject('postgresUrl'), max: 3 });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

async function freshTable(name: string): Promise<string> {
  const table = `${name}_${process.pid}`;
  tables.push(table);
  await createCallbackInboxTable({ pool: admin, table });
  return table;
}

beforeAll(() => {
  admin = pool();
});
afterEach(async () => {
  await Promise.all(served.splice(0).map((each) => each.close()));
});
afterAll(async () => {
  if (tables.length > 0) await admin.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
  await Promise.all(pools.map((each) => each.end()));
});

/** A receiver on `table` that counts what it applied, with what onError heard. */
async function receiverOn(table: string) {
  const credited: string[] = [];
  const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
  const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(), table }), onError: (error, details) => void errors.push({ error, details }) });
  receiver.on('deposit.completed', (callback) => void credited.push(callback.payload.tracking_code));
  const instance = await serveNode(receiver.nodeHandler);
  served.push(instance);
  return { url: instance.url, credited, errors };
}

/** Signed now, whatever the record's age: a support "resend" re-signs with a fresh timestamp. */
function deposit(trackingCode: string) {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);
}

const daysAgo = (days: number): number => Math.floor(Date.now() / 1000) - days * DAY;

async function rows(table: string): Promise<string[]> {
  const { rows: found } = await admin.query<{ tracking_code: string; status: string }>(`SELECT tracking_code, status FROM ${table} ORDER BY tracking_code`);
  return found.map((row) => `${row.tracking_code} ${row.status}`);
}

describe('pruneCallbackInbox with its defaults, then a re-signed redelivery', () => {
  test('a deposit applied, pruned once the time passed, and delivered again re-signed is refused 422 record_too_old and not applied again', async () => {
    const table = await freshTable('retain_a');
    const { url, credited, errors } = await receiverOn(table);
    const record = daysAgo(100);
    const code = `MAN-resend1-${record}`;
    expect(await deliver(url, deposit(code))).toEqual(OK);
    // Time passes: the key was applied four days ago, its record is a hundred days old.
    await admin.query(`UPDATE ${table} SET applied_at = now() - interval '4 days'`);
    expect(await pruneCallbackInbox({ pool: admin, table })).toBe(1);

    expect(await deliver(url, deposit(code))).toEqual(TOO_OLD);
    expect(credited).toEqual([code]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.details).toMatchObject({ phase: 'retention', callback: { payload: { tracking_code: code, status: 'completed' } } });
    const error = errors[0]?.error;
    expect(isPayorchError(error, CallbackRetentionError)).toBe(true);
    expect(error).toMatchObject({ trackingCode: code, status: 'completed', recordTime: record });
    expect((error as CallbackRetentionError).horizon).toBeGreaterThanOrEqual(daysAgo(90) - 5);
    expect(await rows(table)).toEqual([' payorch:horizon']);
  });

  test('a callback of a record older than the horizon that was never applied is refused, and nothing is recorded; a younger one applies', async () => {
    const table = await freshTable('retain_b');
    await pruneCallbackInbox({ pool: admin, table });
    const { url, credited, errors } = await receiverOn(table);
    const old = `MAN-late1-${daysAgo(91)}`;
    expect(await deliver(url, deposit(old))).toEqual(TOO_OLD);
    expect(await deliver(url, deposit(old))).toEqual(TOO_OLD);
    expect(errors.map(({ details }) => details.phase)).toEqual(['retention', 'retention']);
    expect(await rows(table)).toEqual([' payorch:horizon']);
    const young = `MAN-late2-${daysAgo(89)}`;
    expect(await deliver(url, deposit(young))).toEqual(OK);
    expect(credited).toEqual([young]);
  });

  test('refuses nothing before the first prune: a callback of a year-old record applies once', async () => {
    const table = await freshTable('retain_c');
    const { url, credited } = await receiverOn(table);
    const code = `MAN-year1-${daysAgo(365)}`;
    expect(await deliver(url, deposit(code))).toEqual(OK);
    expect(await deliver(url, deposit(code))).toEqual(OK);
    expect(credited).toEqual([code]);
  });

  test('answers a key it still holds 200 as a duplicate even at the horizon: the key is checked before the horizon', async () => {
    const table = await freshTable('retain_d');
    const { url, credited } = await receiverOn(table);
    const record = daysAgo(200);
    const code = `MAN-edge1-${record}`;
    expect(await deliver(url, deposit(code))).toEqual(OK);
    // A horizon exactly at the record: the prune deletes only older records, so the key stays.
    await admin.query(`INSERT INTO ${table} (account, tracking_code, status, applied_at) VALUES ('', '', 'payorch:horizon', to_timestamp($1))`, [record]);
    expect(await pruneCallbackInbox({ pool: admin, table, olderThanSeconds: 300 * DAY })).toBe(0);
    expect(await deliver(url, deposit(code))).toEqual(OK);
    expect(credited).toEqual([code]);
    expect(await deliver(url, deposit(`MAN-edge2-${record}`))).toEqual(TOO_OLD);
  });

  test('deletes by the age of the record, never lowers the horizon, and says how many it deleted', async () => {
    const table = await freshTable('retain_e');
    // Read the clock once: the codes and what is expected of them must not straddle a second.
    const [young, now] = [daysAgo(89), daysAgo(0)];
    await admin.query(
      `INSERT INTO ${table} (account, tracking_code, status) VALUES
        ('a', 'MAN-old1-${daysAgo(120)}', 'completed'), ('a', 'MAN-old2-${daysAgo(91)}', 'completed'),
        ('a', 'MAN-young1-${young}', 'completed'), ('b', 'MAN-new1-${now}', 'completed')`,
    );
    expect(await pruneCallbackInbox({ pool: admin, table })).toBe(2);
    expect(await rows(table)).toEqual([' payorch:horizon', `MAN-new1-${now} completed`, `MAN-young1-${young} completed`]);
    // A longer retention afterwards keeps more rows from now on, but cannot bring back the refused.
    expect(await pruneCallbackInbox({ pool: admin, table, olderThanSeconds: 365 * DAY })).toBe(0);
    const { url } = await receiverOn(table);
    expect(await deliver(url, deposit(`MAN-old3-${daysAgo(100)}`))).toEqual(TOO_OLD);
  });
});

/** A pool whose clients hold `COMMIT` until `gate` opens: a prune paused between its work and its commit. */
function pausedBeforeCommit(source: pg.Pool, reached: () => void, gate: Promise<void>): PostgresPool {
  return {
    async connect(): Promise<PostgresClient> {
      const client = await source.connect();
      return {
        async query(statement: string | { readonly name: string; readonly text: string; readonly values: unknown[] }, values?: unknown[]) {
          if (statement === 'COMMIT') {
            reached();
            await gate;
          }
          return typeof statement === 'string' ? client.query(statement, values) : client.query({ ...statement });
        },
        release: (error?: Error | boolean) => {
          client.release(error);
        },
        on: (event, listener) => client.on(event, listener),
        removeListener: (event, listener) => client.removeListener(event, listener),
      };
    },
  };
}

describe('a prune and claims at the same time', () => {
  test('a redelivery that arrives while a prune deletes its key waits for the prune, then is refused, not applied again', async () => {
    const table = await freshTable('retain_f');
    const { url, credited, errors } = await receiverOn(table);
    const code = `MAN-race1-${daysAgo(100)}`;
    expect(await deliver(url, deposit(code))).toEqual(OK);
    const gate = deferred();
    const reached = deferred();
    const pruning = pruneCallbackInbox({ pool: pausedBeforeCommit(admin, reached.resolve, gate.promise), table });
    await reached.promise;
    // The prune has deleted the key and raised the horizon, uncommitted. The redelivery's claim
    // must wait on the prune's lock, not read the table as it was and insert the key again.
    const redelivery = deliver(url, deposit(code));
    await vi.waitFor(async () => {
      const { rows: waiting } = await admin.query<{ count: string }>(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO %"${table}"%'`);
      expect(Number(waiting[0]!.count)).toBe(1);
    });
    gate.resolve();
    expect(await pruning).toBe(1);
    expect(await redelivery).toEqual(TOO_OLD);
    expect(credited).toEqual([code]);
    expect(errors.map(({ details }) => details.phase)).toEqual(['retention']);
    expect(await rows(table)).toEqual([' payorch:horizon']);
  });

  test('a prune waits for a claim under way and deletes its key once committed; the redelivery is then refused', async () => {
    const table = await freshTable('retain_g');
    const hold = deferred();
    const started = deferred();
    const inbox = createPostgresInbox({ pool: pool(), table });
    const key = { account: 'acct', trackingCode: `MAN-race2-${daysAgo(100)}`, status: 'completed' };
    const applying = inbox.process(key, async () => {
      started.resolve();
      await hold.promise;
    });
    await started.promise;
    const pruning = pruneCallbackInbox({ pool: admin, table });
    await vi.waitFor(async () => {
      const { rows: waiting } = await admin.query<{ count: string }>(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'LOCK TABLE %"${table}"%'`);
      expect(Number(waiting[0]!.count)).toBe(1);
    });
    hold.resolve();
    expect(await applying).toBe('applied');
    expect(await pruning).toBe(1);
    await expect(inbox.process(key, () => Promise.resolve())).rejects.toThrow(CallbackRetentionError);
  });
});
