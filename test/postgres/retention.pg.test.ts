// Retention of the PostgreSQL inbox (docs/inboxes.md, "Retention"): keys are pruned by the age of
// their record, and a callback of a record at or before the stored horizon whose key is not held is
// refused, never applied again. Against a real server (test/postgres/global-setup.ts).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { CallbackRetentionError, createCallbackReceiver, isPayorchError, signCallback } from '../../src/index.js';
import type { CallbackErrorDetails } from '../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresClient, PostgresInboxContext, PostgresPool } from '../../src/inboxes/postgres/index.js';
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
  await createPostgresInboxTable({ pool: admin, table });
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
  const { rows: found } = await admin.query<{ tracking_code: string; statuses: string[] }>(`SELECT tracking_code, statuses FROM ${table} ORDER BY tracking_code`);
  return found.map((row) => `${row.tracking_code} ${row.statuses.join(',')}`);
}

describe('prunePostgresInbox with its defaults, then a re-signed redelivery', () => {
  test('a deposit applied, pruned once the time passed, and delivered again re-signed is refused 422 record_too_old and not applied again', async () => {
    const table = await freshTable('retain_a');
    const { url, credited, errors } = await receiverOn(table);
    const record = daysAgo(100);
    const code = `MAN-resend1-${record}`;
    expect(await deliver(url, deposit(code))).toEqual(OK);
    // Time passes: the key was applied four days ago, its record is a hundred days old.
    await admin.query(`UPDATE ${table} SET applied_at = now() - interval '4 days'`);
    expect(await prunePostgresInbox({ pool: admin, table })).toBe(1);

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
    await prunePostgresInbox({ pool: admin, table });
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
    await admin.query(`INSERT INTO ${table} (record_time, merchant_id, tracking_code, statuses, applied_at) VALUES (0, '', '', '{payorch:horizon}', to_timestamp($1))`, [record]);
    expect(await prunePostgresInbox({ pool: admin, table, olderThanSeconds: 300 * DAY })).toBe(0);
    expect(await deliver(url, deposit(code))).toEqual(OK);
    expect(credited).toEqual([code]);
    expect(await deliver(url, deposit(`MAN-edge2-${record}`))).toEqual(TOO_OLD);
  });

  test('deletes by the age of the record, never lowers the horizon, and says how many it deleted', async () => {
    const table = await freshTable('retain_e');
    // Read the clock once: the codes and what is expected of them must not straddle a second.
    const [old1, old2, young, now] = [daysAgo(120), daysAgo(91), daysAgo(89), daysAgo(0)];
    await admin.query(
      `INSERT INTO ${table} (record_time, merchant_id, tracking_code, statuses) VALUES
        (${old1}, 'a', 'MAN-old1-${old1}', '{completed}'), (${old2}, 'a', 'MAN-old2-${old2}', '{completed}'),
        (${young}, 'a', 'MAN-young1-${young}', '{completed}'), (${now}, 'b', 'MAN-new1-${now}', '{completed}')`,
    );
    expect(await prunePostgresInbox({ pool: admin, table })).toBe(2);
    expect(await rows(table)).toEqual([' payorch:horizon', `MAN-new1-${now} completed`, `MAN-young1-${young} completed`]);
    // A longer retention afterwards keeps more rows from now on, but cannot bring back the refused.
    expect(await prunePostgresInbox({ pool: admin, table, olderThanSeconds: 365 * DAY })).toBe(0);
    const { url } = await receiverOn(table);
    expect(await deliver(url, deposit(`MAN-old3-${daysAgo(100)}`))).toEqual(TOO_OLD);
  });
});

/** A pool whose clients tell `before` of each statement, and wait for it, before they send it. */
function intercepting(source: pg.Pool, before: (text: string, values: readonly unknown[] | undefined) => Promise<void> | void): PostgresPool {
  return {
    async connect(): Promise<PostgresClient> {
      const client = await source.connect();
      return {
        async query(statement: string | { readonly name: string; readonly text: string; readonly values: unknown[] }, values?: unknown[]) {
          await before(typeof statement === 'string' ? statement : statement.text, typeof statement === 'string' ? values : statement.values);
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

/** A prune's pool that holds the COMMIT of its first batch (the first transaction that deletes) until `gate` opens. */
function pausedInBatch(source: pg.Pool, reached: () => void, gate: Promise<void>): PostgresPool {
  let deleting = false;
  let paused = false;
  return intercepting(source, async (text) => {
    if (text.includes('DELETE FROM')) deleting = true;
    if (text === 'COMMIT' && deleting && !paused) {
      paused = true;
      reached();
      await gate;
    }
  });
}

const horizonRaised = async (table: string): Promise<boolean> => (await admin.query(`SELECT 1 FROM ${table} WHERE record_time = 0 AND tracking_code = ''`)).rowCount === 1;

describe('a prune and claims at the same time', () => {
  test('claims complete while a prune batch is open: a young callback applies, the key being deleted is a duplicate, an old unheld one is refused; after the commit the key is refused', async () => {
    const table = await freshTable('retain_f');
    const { url, credited, errors } = await receiverOn(table);
    const code = `MAN-race1-${daysAgo(100)}`;
    expect(await deliver(url, deposit(code))).toEqual(OK);
    const gate = deferred();
    const reached = deferred();
    const pruning = prunePostgresInbox({ pool: pausedInBatch(admin, reached.resolve, gate.promise), table });
    await reached.promise;
    // The batch has deleted the key, uncommitted, and holds its row. No claim writes a row behind
    // the horizon, so none waits for the batch: each of these answers while it is open.
    const young = `MAN-race2-${daysAgo(1)}`;
    expect(await deliver(url, deposit(young))).toEqual(OK);
    expect(await deliver(url, deposit(code))).toEqual(OK);
    expect(await deliver(url, deposit(`MAN-race3-${daysAgo(100)}`))).toEqual(TOO_OLD);
    gate.resolve();
    expect(await pruning).toBe(1);
    expect(await deliver(url, deposit(code))).toEqual(TOO_OLD);
    expect(credited).toEqual([code, young]);
    expect(errors.map(({ details }) => details.phase)).toEqual(['retention', 'retention']);
    expect(await rows(table)).toEqual([' payorch:horizon', `${young} completed`]);
  });

  test('a prune raises the horizon, waits for a claim under way (other claims meanwhile complete), then deletes its key; the redelivery is then refused', async () => {
    const table = await freshTable('retain_g');
    const hold = deferred();
    const started = deferred();
    const inbox = createPostgresInbox({ pool: pool(), table });
    const key = { merchantId: 'acct', trackingCode: `MAN-race4-${daysAgo(100)}`, status: 'completed' };
    const applying = inbox.process(key, async () => {
      started.resolve();
      await hold.promise;
    });
    await started.promise;
    let pruned = false;
    const pruning = prunePostgresInbox({ pool: admin, table }).finally(() => (pruned = true));
    await vi.waitFor(async () => {
      expect(await horizonRaised(table)).toBe(true);
    });
    // The claim under way read the table before the horizon: the prune may delete nothing until it
    // ends. Claims that came after see the horizon, and do not wait for the prune.
    expect(await inbox.process({ ...key, trackingCode: `MAN-race5-${daysAgo(1)}` }, () => Promise.resolve())).toBe('applied');
    await expect(inbox.process({ ...key, trackingCode: `MAN-race6-${daysAgo(100)}` }, () => Promise.resolve())).rejects.toThrow(CallbackRetentionError);
    expect(pruned).toBe(false);
    hold.resolve();
    expect(await applying).toBe('applied');
    expect(await pruning).toBe(1);
    await expect(inbox.process(key, () => Promise.resolve())).rejects.toThrow(CallbackRetentionError);
  });

  test('deletes in bounded batches, each found through the record-time index in record-time order, not by reading every row', async () => {
    const table = await freshTable('retain_h');
    // 12,000 keys, half of them behind the horizon.
    await admin.query(
      `INSERT INTO ${table} (record_time, merchant_id, tracking_code, statuses)
       SELECT r, 'acct', 'MAN-bulk' || i || '-' || r, '{completed}' FROM generate_series(1, 12000) AS i, LATERAL (SELECT $1::bigint - (i % 2) * 20 * ${DAY} - i AS r) AS t`,
      [daysAgo(80)],
    );
    await admin.query(`ANALYZE ${table}`);
    const batches: { text: string; values: readonly unknown[] }[] = [];
    const recording = intercepting(admin, (text, values) => {
      if (text.includes('DELETE FROM')) batches.push({ text, values: values ?? [] });
    });
    expect(await prunePostgresInbox({ pool: recording, table })).toBe(6000);
    // 1000 rows a batch, and the one that finds fewer ends the prune.
    expect(batches).toHaveLength(7);
    const { rows: plan } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${batches[3]!.text}`, [...batches[3]!.values]);
    const text = plan.map((line) => line['QUERY PLAN']).join('\n');
    expect(text).toMatch(new RegExp(`Index Scan using ${table}_record_time on ${table}\\n +Index Cond: \\(\\(ROW\\(record_time, merchant_id, tracking_code\\) > ROW\\(`));
    // The rows found are deleted where they are, by their tuple ids.
    expect(text).toMatch(new RegExp(`Tid Scan on ${table}`));
    expect(text).not.toContain('Seq Scan');
  });
});
