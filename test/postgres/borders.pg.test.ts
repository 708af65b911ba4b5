// The PostgreSQL inbox as it is operated (a server restart, two accounts in one table, rollback, the prune's options, an old table), against a real server (test/postgres/global-setup.ts).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createCallbackReceiver, InboxError, RequestValidationError, signCallback } from '../../src/index.js';
import type { CallbackErrorDetails } from '../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox, MIN_POSTGRES_INBOX_RETENTION_SECONDS, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver, serveNode } from '../helpers/serve.js';
import type { Served } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';
import { merchantIdOf } from '../../src/webhooks/key.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const OK = { status: 200, body: { success: true } };
const ACCOUNT_B = { apiKey: 'prov_api_B', secretKey: 'prov_secret_B' };
const table = `borders_${process.pid}`;
// Names this file's connections, so that terminating them spares other test files'.
const applicationName = `payorch-borders-${process.pid}`;
const pools: pg.Pool[] = [];
const served: Served[] = [];
let admin: pg.Pool;

function pool(withListener: boolean): pg.Pool {
  const created = new pg.Pool({ connectionString: inject('postgresUrl'), max: 2, application_name: applicationName });
  if (withListener) created.on('error', () => undefined);
  pools.push(created);
  return created;
}

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: inject('postgresUrl'), max: 1 });
  admin.on('error', () => undefined);
  await createPostgresInboxTable({ pool: admin, table });
});
afterAll(async () => {
  await admin.query(`DROP TABLE IF EXISTS ${table}, ${table}_before2, ${table}_before3`);
  await Promise.all([admin, ...pools].map((each) => each.end()));
});
afterEach(async () => {
  await Promise.all(served.splice(0).map((each) => each.close()));
});

function deposit(trackingCode: string, credentials: { apiKey: string; secretKey: string } = PROVIDER) {
  return signCallback({ ...unsigned.deposit, tracking_code: trackingCode }, credentials);
}

async function serve(handler: Parameters<typeof serveNode>[0]): Promise<string> {
  const instance = await serveNode(handler);
  served.push(instance);
  return instance.url;
}

describe('the PostgreSQL inbox, operated', () => {
  test('survives the server terminating its pooled connections mid-run (a restart), with no error listener of its own, and applies the next callback', async () => {
    // Set up as a user who never heard of pool.on('error'): only the inbox can guard it.
    const bare = pool(false);
    const onPoolError = vi.fn();
    const applied: string[] = [];
    const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox({ pool: bare, table, onPoolError }), onError: () => undefined });
    receiver.on('deposit.completed', (callback) => void applied.push(callback.payload.tracking_code));
    const url = await serve(receiver.nodeHandler);
    expect(await deliver(url, deposit('MAN-before1-1763812000'))).toEqual(OK);
    expect(bare.idleCount).toBeGreaterThan(0);

    const { rows } = await admin.query<{ stopped: boolean }>('SELECT pg_terminate_backend(pid) AS stopped FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    expect(rows.length).toBeGreaterThan(0);
    await vi.waitFor(() => { expect(onPoolError).toHaveBeenCalled(); });

    expect(await deliver(url, deposit('MAN-after1-1763812000'))).toEqual(OK);
    expect(applied).toEqual(['MAN-before1-1763812000', 'MAN-after1-1763812000']);
  });

  test('keeps the keys of two accounts sharing one table apart: a callback signed by A for B\'s tracking code does not make B\'s a duplicate', async () => {
    const shared = pool(true);
    const appliedB = vi.fn();
    const a = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox({ pool: shared, table }), onError: () => undefined }).on('*', () => undefined);
    const b = createCallbackReceiver<Context>({ ...ACCOUNT_B, merchantId: 'merchant-b', inbox: createPostgresInbox({ pool: shared, table }), onError: () => undefined }).on('*', appliedB);
    const [urlA, urlB] = await Promise.all([serve(a.nodeHandler), serve(b.nodeHandler)]);
    const code = 'MAN-shared1-1763812000';
    expect(await deliver(urlA, deposit(code))).toEqual(OK);
    expect(await deliver(urlB, deposit(code, ACCOUNT_B))).toEqual(OK);
    expect(appliedB).toHaveBeenCalledTimes(1);
    const { rows } = await admin.query<{ merchant_id: string }>(`SELECT merchant_id FROM ${table} WHERE tracking_code = $1 ORDER BY merchant_id`, [code]);
    expect(rows.map((row) => row.merchant_id)).toEqual(['merchant-b', merchantIdOf(PROVIDER.apiKey, undefined)]);
  });

  test('a confirm that refuses rolls back: nothing is recorded, and the genuine delivery applies', async () => {
    let allow = false;
    const handler = vi.fn();
    const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(true), table }), confirm: () => allow, onError: () => undefined });
    receiver.on('*', handler);
    const url = await serve(receiver.nodeHandler);
    const delivery = deposit('MAN-confirm2-1763812000');
    expect(await deliver(url, delivery)).toMatchObject({ status: 409 });
    const { rowCount } = await admin.query(`SELECT 1 FROM ${table} WHERE tracking_code = 'MAN-confirm2-1763812000'`);
    expect(rowCount).toBe(0);
    allow = true;
    expect(await deliver(url, delivery)).toEqual(OK);
    expect(handler).toHaveBeenCalledTimes(1);
  });
});

describe('prunePostgresInbox', () => {
  // What it deletes and the horizon it keeps: test/postgres/retention.pg.test.ts.
  test.each([3600, MIN_POSTGRES_INBOX_RETENTION_SECONDS - 1, 1.5e6 + 0.5, Number.NaN])('refuses a retention of %s before touching the table, naming the option and the range', async (olderThanSeconds) => {
    const connect = vi.fn();
    const error = await prunePostgresInbox({ pool: { connect }, table, olderThanSeconds }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues[0]).toMatchObject({ field: 'olderThanSeconds', rule: 'invalid_option' });
    expect((error as Error).message).toContain(`an integer from ${MIN_POSTGRES_INBOX_RETENTION_SECONDS} to`);
    expect(connect).not.toHaveBeenCalled();
  });
});

describe('createPostgresInbox', () => {
  test.each([0, 60_001, 2.5, Number.NaN])('refuses a lockTimeoutMs of %s, naming the option and the range', (lockTimeoutMs) => {
    expect(() => createPostgresInbox({ pool: admin, table, lockTimeoutMs })).toThrow(/lockTimeoutMs: must be an integer from 1 to 60000 \(keep it below the senders' patience, a few seconds\); got /);
  });
});

const NO_VERSION = 'matches no version payorch made (version 1; beside version 1, it has';

describe('a table made by a payorch 0.x before the first release, whose shape no version has', () => {
  test.each([
    // Before one row per tracking code: a row per status.
    ['a row per status', 'account text NOT NULL, tracking_code text NOT NULL, status text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code, status)', 'before2', NO_VERSION],
    // Before the record time left the key: a transfer's created_at in another form made a second row.
    ['the record time in the primary key', 'record_time bigint NOT NULL, account text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (record_time, account, tracking_code)', 'before3', `${NO_VERSION} "account text NOT NULL", "PRIMARY KEY (record_time, account, tracking_code)" and lacks "merchant_id text NOT NULL", "PRIMARY KEY (merchant_id, tracking_code)")`],
    // The merchant kept as account: its keys were the raw API key where no merchant was named, which
    // no migration could turn into the digest a receiver looks up now.
    ['the merchant kept as account', 'account text NOT NULL, tracking_code text NOT NULL, statuses text[] NOT NULL, record_time bigint NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code)', 'before4', `${NO_VERSION} "account text NOT NULL", "PRIMARY KEY (account, tracking_code)" and lacks "merchant_id text NOT NULL", "PRIMARY KEY (merchant_id, tracking_code)")`],
  ])('with %s is refused with an InboxError, each callback answered 500 with nothing applied, naming the versions', async (_shape, columns, name, message) => {
    const old = `${table}_${name}`;
    await admin.query(`CREATE TABLE ${old} (${columns})`);
    const errors: { error: unknown; details: CallbackErrorDetails }[] = [];
    const handler = vi.fn();
    const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox({ pool: pool(true), table: old }), onError: (error, details) => void errors.push({ error, details }) });
    receiver.on('*', handler);
    const url = await serve(receiver.nodeHandler);
    expect(await deliver(url, deposit(`MAN-${name}-1763812000`))).toMatchObject({ status: 500 });
    expect(errors[0]?.error).toBeInstanceOf(InboxError);
    expect(String(errors[0]?.error)).toContain(message);
    expect(errors[0]?.details.phase).toBe('inbox');
    expect(handler).not.toHaveBeenCalled();
    expect((await admin.query(`SELECT 1 FROM ${old}`)).rowCount).toBe(0);
  });
});
