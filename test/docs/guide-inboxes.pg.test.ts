import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { signCallback } from '../../src/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { ledgerDatabase, startPgWorker } from '../helpers/hyperdrive.js';
import { codeBlock } from '../helpers/markdown.js';
import { deliver, serveNode } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * The PostgreSQL blocks of docs/inboxes.md, run as printed on the test PostgreSQL: the first in
 * Node, the Hyperdrive one in workerd through miniflare's Hyperdrive binding. An UPDATE that
 * matches no row succeeds: each block's handler must fail the callback then, its key included,
 * rather than record a credit that did not happen. And the hash does not cover the user or the
 * amount: each block credits the user of the merchant's order row, never the callback's.
 */

const root = join(import.meta.dirname, '../..');
const guide = readFileSync(join(root, 'docs/inboxes.md'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'payorch-guide-inboxes-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const seconds = Math.floor(Date.now() / 1000);
const OK = { status: 200, body: { success: true } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
const NOT_CONFIRMED = { status: 409, body: { success: false, error: 'not_confirmed' } };
const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);

type Ledger = Awaited<ReturnType<typeof ledgerDatabase>>;

/**
 * What each block must do with one order of `amount` for user `u-<name>`: a deposit while the user
 * has no balance row is a 500 with no key and no payment recorded; a replay naming another user,
 * or above the order's ceiling, is refused (the hash covers neither); then two deliveries at once
 * credit the order's user once.
 */
async function creditedOnce(url: string, database: Ledger, name: string, amount: number): Promise<void> {
  const code = `MAN-${name}01-${seconds - 60}`;
  const user = `u-${name}`;
  await database.order(code, user, amount);
  const delivery = deposit(code, user, amount);
  expect(await deliver(url, delivery)).toEqual(NOT_APPLIED);
  expect(await database.keysOf(code)).toEqual([]);
  expect((await database.pool.query('SELECT paid_amount FROM orders WHERE tracking_code = $1', [code])).rows).toEqual([{ paid_amount: null }]);
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', [user]);
  await database.pool.query('INSERT INTO balances (user_id) VALUES ($1)', ['u-thief']);
  expect(await deliver(url, deposit(code, 'u-thief', amount))).toEqual(NOT_CONFIRMED);
  expect(await deliver(url, deposit(code, user, amount * 2 + 1))).toEqual(NOT_CONFIRMED);
  expect(await Promise.all([deliver(url, delivery), deliver(url, delivery)])).toEqual([OK, OK]);
  expect((await database.pool.query('SELECT user_id, amount::float AS amount FROM balances ORDER BY user_id')).rows).toEqual([{ user_id: user, amount }, { user_id: 'u-thief', amount: 0 }]);
  expect(await database.keysOf(code)).toEqual([{ status: 'completed' }]);
}

describe('the PostgreSQL block, in Node', () => {
  test('a deposit whose user has no balance row is a 500 with no key and no payment recorded; once the row exists it is credited once', async () => {
    const database = await ledgerDatabase('payorch_guide_pg');
    const env: Readonly<Record<string, string>> = { DATABASE_URL: new URL(database.hyperdriveUrl).href };
    // The block leaves the keys to the receiver, which reads them from the environment.
    vi.stubEnv('PAYORCH_PROVIDER_API_KEY', PROVIDER.apiKey);
    vi.stubEnv('PAYORCH_PROVIDER_SECRET_KEY', PROVIDER.secretKey);
    // The block as printed, its imports resolved to this checkout and its environment given.
    const module = `${codeBlock(guide, '## PostgreSQL')
      .replace("from 'pg'", `from '${createRequire(import.meta.url).resolve('pg')}'`)
      .replace("from 'payorch/postgres'", `from '${join(root, 'src/inboxes/postgres/index.ts')}'`)
      .replace("from 'payorch'", `from '${join(root, 'src/index.ts')}'`)
      .replace(/process\.env\['(\w+)'\]/g, (_match, name: string) => JSON.stringify(env[name]))}\nexport { receiver, pool };\n`;
    const file = join(work, 'postgres.ts');
    writeFileSync(file, module);
    const { receiver, pool } = (await import(file)) as { receiver: { nodeHandler: Parameters<typeof serveNode>[0] }; pool: pg.Pool };
    const served = await serveNode(receiver.nodeHandler);
    try {
      await creditedOnce(served.url, database, 'gpg', 250);
    } finally {
      await served.close();
      await pool.end();
      await database.drop();
      vi.unstubAllEnvs();
    }
  });
});

describe('the Hyperdrive block, in workerd', () => {
  test('a deposit whose user has no balance row is a 500 with no key and no payment recorded; once the row exists it is credited once', async () => {
    const database = await ledgerDatabase('payorch_guide_hyperdrive');
    const worker = await startPgWorker({ source: codeBlock(guide, '### PostgreSQL through Hyperdrive') }, database);
    try {
      await creditedOnce(worker.url, database, 'ghd', 40);
    } finally {
      await worker.dispose();
      await database.drop();
    }
  }, 60_000);
});
