import { Miniflare } from 'miniflare';
import { builtinModules } from 'node:module';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import { callbackInboxTableSql } from '../../src/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { bundleWorker } from '../helpers/worker-bundle.js';
import { PROVIDER } from '../helpers/wire.js';

// examples/webhooks/cloudflare-hyperdrive.ts in workerd (miniflare) with nodejs_compat, `pg`
// bundled as wrangler does (Node's built-ins left to workerd), through miniflare's Hyperdrive binding to the test PostgreSQL, over
// real HTTP. What workerd prints is kept, to show that ending each request's pool is quiet.
let miniflare: Miniflare;
let url: string;
let pool: pg.Pool;
let printed = '';
const seconds = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  // A database of its own: the example's tables are named as other test files' tables are.
  const admin = new pg.Client({ connectionString: inject('postgresUrl') });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS payorch_hyperdrive');
  await admin.query('CREATE DATABASE payorch_hyperdrive');
  await admin.end();
  const database = new URL(inject('postgresUrl'));
  database.pathname = '/payorch_hyperdrive';
  pool = new pg.Pool({ connectionString: database.href });
  // miniflare wants a password in the URL, even under trust authentication.
  if (database.password === '') database.password = 'unused';
  // pg is CommonJS: its require() of Node's built-ins goes to workerd's createRequire, as wrangler arranges it.
  const script = await bundleWorker(`export { default } from '../examples/webhooks/cloudflare-hyperdrive.ts';`, {
    external: ['node:*', ...builtinModules],
    banner: "import { createRequire } from 'node:module'; const require = createRequire('/');",
  });
  miniflare = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    compatibilityFlags: ['nodejs_compat'],
    hyperdrives: { HYPERDRIVE: database.href },
    bindings: { PAYORCH_PROVIDER_API_KEY: PROVIDER.apiKey, PAYORCH_PROVIDER_SECRET_KEY: PROVIDER.secretKey },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    },
  });
  url = new URL('/webhooks/payorch', await miniflare.ready).href;
  await pool.query(callbackInboxTableSql());
  await pool.query('CREATE TABLE balances (user_id text PRIMARY KEY, amount numeric NOT NULL DEFAULT 0)');
  await pool.query('CREATE TABLE ledger (tracking_code text PRIMARY KEY, user_id text NOT NULL, amount numeric NOT NULL)');
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
  await pool.end();
  const admin = new pg.Client({ connectionString: inject('postgresUrl') });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS payorch_hyperdrive');
  await admin.end();
});

async function ledgerOf(user: string): Promise<unknown[]> {
  const { rows } = await pool.query<Record<string, unknown>>('SELECT l.tracking_code, l.amount::float AS amount, b.amount::float AS balance FROM ledger l JOIN balances b USING (user_id) WHERE user_id = $1', [user]);
  return rows;
}
async function keysOf(code: string): Promise<unknown[]> {
  return (await pool.query<Record<string, unknown>>('SELECT status FROM payorch_callback_inbox WHERE tracking_code = $1', [code])).rows;
}
const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
const OK = { status: 200, body: { success: true } };

test('three copies at the same time, then a redelivery: the ledger moves once, one key is kept, and ending the pools reports nothing', async () => {
  const code = `MAN-hdconc01-${seconds - 60}`;
  await pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-hda']);
  const delivery = deposit(code, 'u-hda', 250);
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK, OK]);
  expect(await deliver(url, delivery)).toEqual(OK);
  expect(await ledgerOf('u-hda')).toEqual([{ tracking_code: code, amount: 250, balance: 250 }]);
  expect(await keysOf(code)).toEqual([{ status: 'completed' }]);
  // Each request's pool.end() runs in waitUntil, after its answer: give the last one a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(printed).not.toMatch(/idle pooled connection failed|Stream was cancelled/);
});

test('a handler that throws rolls its key back; the redelivery after it applies the deposit once', async () => {
  const code = `MAN-hdfail01-${seconds - 60}`;
  const delivery = deposit(code, 'u-hdb', 40);
  expect(await deliver(url, delivery)).toEqual({ status: 500, body: { success: false, error: 'not_applied' } });
  expect(await keysOf(code)).toEqual([]);
  await pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-hdb']);
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK]);
  expect(await ledgerOf('u-hdb')).toEqual([{ tracking_code: code, amount: 40, balance: 40 }]);
  // Only the handler's own failure was reported; no pool ended in this file reported one.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(printed).toContain('no balance for user u-hdb yet');
  expect(printed).not.toMatch(/idle pooled connection failed|Stream was cancelled/);
});
