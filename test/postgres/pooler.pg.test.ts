// The PostgreSQL inbox behind a real PgBouncer (test/postgres/bouncer.ts) in each pooling mode
// (docs/inboxes.md, "Poolers"): transaction and session pooling apply each callback once; statement
// pooling, which refuses every transaction block, is refused with a StatementPoolingError.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createCallbackReceiver, isPayorchError, signCallback } from '../../src/index.js';
import type { CallbackErrorDetails } from '../../src/index.js';
import type * as PostgresModule from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deferred, deliver, serveNode } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';
import { startBouncer } from './bouncer.js';
import type { Bouncer } from './bouncer.js';
import { pastTheGuard } from './past-the-guard.js';

type Context = PostgresInboxContext<pg.PoolClient>;
type PostgresEntry = typeof PostgresModule;
const OK = { status: 200, body: { success: true } };
const bouncers: Bouncer[] = [];
const pools: pg.Pool[] = [];
const served: Served[] = [];
const tables: string[] = [];
let admin: pg.Pool;

function pool(url: string, max = 4): pg.Pool {
  const created = new pg.Pool({ connectionString: url, max });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

async function bouncer(poolMode: 'session' | 'transaction' | 'statement'): Promise<string> {
  // Fewer server connections than clients, where the mode lets clients share them; in session
  // pooling a client keeps its server connection, so the bouncer needs one per pooled client.
  const started = await startBouncer({ serverUrl: inject('postgresUrl'), poolMode, poolSize: poolMode === 'session' ? 4 : 2 });
  bouncers.push(started);
  return started.url;
}

/** Each application loads payorch/postgres afresh, as a process of its own does. */
async function freshEntry(): Promise<PostgresEntry> {
  vi.resetModules();
  return import('../../src/inboxes/postgres/index.js');
}

/** An application: its own inbox table, its own ledger, its own pool, its own receiver. */
async function application(name: string, url: string) {
  const entry = await freshEntry();
  const table = `${name}_inbox_${process.pid}`;
  const ledger = `${name}_ledger_${process.pid}`;
  tables.push(table, ledger);
  await entry.createPostgresInboxTable({ pool: admin, table });
  await admin.query(`CREATE TABLE ${ledger} (tracking_code text NOT NULL)`);
  const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
  const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: entry.createPostgresInbox({ pool: pool(url), table }), onError: (error, details) => void errors.push({ error, details }) });
  receiver.on('deposit.completed', async (callback, { client }) => {
    await client.query(`INSERT INTO ${ledger} (tracking_code) VALUES ($1)`, [callback.payload.tracking_code]);
  });
  const instance = await serveNode(receiver.nodeHandler);
  served.push(instance);
  const read = async (from: string): Promise<string[]> => {
    const { rows } = await admin.query<{ tracking_code: string }>(`SELECT tracking_code FROM ${from} ORDER BY tracking_code`);
    return rows.map((row) => row.tracking_code);
  };
  return { url: instance.url, errors, ledger: () => read(ledger), keys: () => read(table) };
}

function deposit(trackingCode: string) {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, PROVIDER);
}

const codes = (app: string, count: number): string[] => Array.from({ length: count }, (_, index) => `MAN-${app}${String(index).padStart(2, '0')}-1763812000`);

/**
 * Two copies of each callback at once, then each again re-signed, then, as the service does, again
 * each one not answered 200 (a few rounds): the answers of the first two rounds.
 */
async function deliverAll(url: string, trackingCodes: readonly string[]): Promise<{ status: number; body: unknown }[]> {
  const together = await Promise.all(trackingCodes.flatMap((code) => [deliver(url, deposit(code)), deliver(url, deposit(code))]));
  const again = await Promise.all(trackingCodes.map((code) => deliver(url, deposit(code))));
  let failing = trackingCodes.filter((_, index) => together[2 * index]?.status !== 200 || together[2 * index + 1]?.status !== 200 || again[index]?.status !== 200);
  for (let round = 0; round < 5 && failing.length > 0; round++) {
    const answers = await Promise.all(failing.map((code) => deliver(url, deposit(code))));
    failing = failing.filter((_, index) => answers[index]?.status !== 200);
  }
  return [...together, ...again];
}

beforeAll(() => {
  admin = pool(inject('postgresUrl'), 2);
});
afterEach(async () => {
  await Promise.all(served.splice(0).map((each) => each.close()));
});
afterAll(async () => {
  await Promise.all(pools.splice(1).map((each) => each.end()));
  if (tables.length > 0) await admin.query(`DROP TABLE IF EXISTS ${tables.join(', ')}`);
  await admin.end();
  await Promise.all(bouncers.map((each) => each.stop()));
});

describe('behind PgBouncer in transaction pooling', () => {
  test('two applications with two tables and two pools behind one bouncer apply each callback once, each in its own table', async () => {
    const url = await bouncer('transaction');
    const [a, b] = [await application('appa', url), await application('appb', url)];
    const [codesA, codesB] = [codes('A', 12), codes('B', 12)];
    const [answersA, answersB] = await Promise.all([deliverAll(a.url, codesA), deliverAll(b.url, codesB)]);
    // The money first: each application's ledger and keys hold its own callbacks, once each.
    expect({ ledgerA: await a.ledger(), keysA: await a.keys(), ledgerB: await b.ledger(), keysB: await b.keys() }).toEqual({ ledgerA: codesA, keysA: codesA, ledgerB: codesB, keysB: codesB });
    expect([...answersA, ...answersB].filter((answer) => answer.status !== 200)).toEqual([]);
    expect(answersA[0]).toEqual(OK);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});

describe('a handler that ends the inbox\'s transaction, behind PgBouncer in transaction pooling', () => {
  test('a helper\'s own BEGIN … ROLLBACK and a PREPARE TRANSACTION are refused, and a ROLLBACK past the guard is found at COMMIT: each a 500 and an InboxCommitError, never a 200; the deposit of 250 is credited once, by the redelivery', async () => {
    const entry = await freshEntry();
    const url = await bouncer('transaction');
    const table = `ended_inbox_${process.pid}`;
    const balances = `ended_balances_${process.pid}`;
    tables.push(table, balances);
    await entry.createPostgresInboxTable({ pool: admin, table });
    await admin.query(`CREATE TABLE ${balances} (user_id text PRIMARY KEY, amount numeric NOT NULL)`);
    await admin.query(`INSERT INTO ${balances} VALUES ('u-ended', 0)`);
    const errors: unknown[] = [];
    const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: entry.createPostgresInbox({ pool: pool(url), table }), onError: (error) => void errors.push(error) });
    const ends: ((client: pg.PoolClient) => Promise<void>)[] = [
      // The shop's helper: a transaction of its own, rolled back on a failure it catches.
      async (client) => {
        await client.query('BEGIN');
        await client.query('SELECT 1 / 0').catch(() => client.query('ROLLBACK'));
      },
      async (client) => {
        await client.query("PREPARE TRANSACTION 'payorch_pooler'").catch(() => undefined);
      },
      // pg's own query, as a library holding it may call it: the inbox's COMMIT finds the
      // transaction ended, on whichever server connection the pooler gives it.
      async (client) => {
        await pastTheGuard(client, 'ROLLBACK');
      },
    ];
    receiver.on('deposit.completed', async (callback, { client }) => {
      await client.query(`UPDATE ${balances} SET amount = amount + $1 WHERE user_id = $2`, [callback.payload.amount, callback.payload.user_id]);
      await ends.shift()?.(client);
    });
    const instance = await serveNode(receiver.nodeHandler);
    served.push(instance);
    const code = 'MAN-ended01-1763812000';
    const delivery = signCallback({ ...unsigned.deposit, tracking_code: code, user_id: 'u-ended', amount: 250 }, PROVIDER);
    const balance = async (): Promise<number> => Number((await admin.query<{ amount: string }>(`SELECT amount FROM ${balances}`)).rows[0]?.amount);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await deliver(instance.url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_applied' } });
      expect(await balance()).toBe(0);
    }
    expect(errors.every((error) => isPayorchError(error, entry.InboxCommitError))).toBe(true);
    expect(errors.map((error) => /a handler (sent [A-Z ]+ on the inbox's client|ended the transaction)/.exec((error as Error).message)?.[0])).toEqual([
      "a handler sent BEGIN on the inbox's client",
      "a handler sent PREPARE TRANSACTION on the inbox's client",
      'a handler ended the transaction',
    ]);
    expect(await deliver(instance.url, delivery)).toEqual(OK);
    expect(await deliver(instance.url, delivery)).toEqual(OK);
    expect(await balance()).toBe(250);
    expect((await admin.query(`SELECT statuses FROM ${table}`)).rows).toEqual([{ statuses: ['completed'] }]);
  });
});

describe('one tracking code at a time, behind PgBouncer in transaction pooling', () => {
  test('rejected and failed of one withdrawal on two pools: the second waits for the first and sees it', async () => {
    const entry = await freshEntry();
    const url = await bouncer('transaction');
    const table = `order_inbox_${process.pid}`;
    tables.push(table);
    await entry.createPostgresInboxTable({ pool: admin, table });
    const [first, second] = [entry.createPostgresInbox({ pool: pool(url), table }), entry.createPostgresInbox({ pool: pool(url), table })];
    const code = 'WIT-order01-1763812000';
    const hold = deferred();
    const started = deferred();
    const seen: (readonly string[])[] = [];
    const applying = first.process({ merchantId: 'acct', trackingCode: code, status: 'rejected' }, async ({ appliedStatuses }) => {
      seen.push(appliedStatuses);
      started.resolve();
      await hold.promise;
    });
    await started.promise;
    const waiting = second.process({ merchantId: 'acct', trackingCode: code, status: 'failed' }, ({ appliedStatuses }) => {
      seen.push(appliedStatuses);
      return Promise.resolve();
    });
    await vi.waitFor(async () => {
      const { rows } = await admin.query<{ count: string }>(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [`%INSERT INTO %"${table}"%`]);
      expect(Number(rows[0]?.count)).toBe(1);
    });
    hold.resolve();
    expect([await applying, await waiting]).toEqual(['applied', 'applied']);
    expect(seen).toEqual([[], ['rejected']]);
  });
});

describe('behind PgBouncer in session pooling', () => {
  test('applies each callback once through concurrent copies and redeliveries', async () => {
    const a = await application('sess', await bouncer('session'));
    const trackingCodes = codes('S', 8);
    const answers = await deliverAll(a.url, trackingCodes);
    expect({ ledger: await a.ledger(), keys: await a.keys() }).toEqual({ ledger: trackingCodes, keys: trackingCodes });
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  });
});

describe('behind PgBouncer in statement pooling', () => {
  test('refuses every callback with a StatementPoolingError told to onError, answers 500, applies and records nothing', async () => {
    const entry = await freshEntry();
    const a = await application('stmt', await bouncer('statement'));
    const code = 'MAN-stmt01-1763812000';
    expect(await deliver(a.url, deposit(code))).toEqual({ status: 500, body: { success: false, error: 'not_applied' } });
    expect(await deliver(a.url, deposit(code))).toMatchObject({ status: 500 });
    expect(a.errors).toHaveLength(2);
    expect(a.errors[0]?.details.phase).toBe('inbox');
    expect(isPayorchError(a.errors[0]?.error, entry.StatementPoolingError)).toBe(true);
    expect(String(a.errors[0]?.error)).toMatch(/StatementPoolingError: payorch\/postgres: the inbox \(the callback was not applied\) needs a transaction, which a pooler in statement pooling refuses; use transaction or session pooling/);
    expect(await a.ledger()).toEqual([]);
    expect(await a.keys()).toEqual([]);
  });

  test('prunePostgresInbox refuses with the same error', async () => {
    const entry = await freshEntry();
    const table = `stmt_prune_${process.pid}`;
    tables.push(table);
    await entry.createPostgresInboxTable({ pool: admin, table });
    const error = await entry.prunePostgresInbox({ pool: pool(await bouncer('statement')), table }).catch((caught: unknown) => caught);
    expect(isPayorchError(error, entry.StatementPoolingError)).toBe(true);
    expect(String(error)).toContain('statement pooling');
  });

  test('createPostgresInboxTable refuses with the same error, naming the table, not the driver\'s', async () => {
    const entry = await freshEntry();
    const error = await entry.createPostgresInboxTable({ pool: pool(await bouncer('statement')), table: `stmt_create_${process.pid}` }).catch((caught: unknown) => caught);
    expect(isPayorchError(error, entry.StatementPoolingError)).toBe(true);
    expect(String(error)).toMatch(/^StatementPoolingError: payorch\/postgres: creating or migrating "public"\."stmt_create_\d+" needs a transaction, which a pooler in statement pooling refuses/);
  });
});
