import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from '../helpers/miniflare.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signCallback } from '../../src/index.js';
import type { D1DatabaseLike } from '../../src/inboxes/d1/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { codeBlock } from '../helpers/markdown.js';
import { bundleWorker } from '../helpers/worker-bundle.js';
import { d1Beside, d1Of } from '../helpers/d1-over-http.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * The Cloudflare blocks of docs/inboxes.md, run as printed in workerd (miniflare), bundled from
 * dist/ as wrangler would. A guard that does not guard records a callback as applied while its
 * write did nothing: an UPDATE that matches no row succeeds. Each block's guard must fail the
 * callback, its key included.
 */

const guide = readFileSync(join(import.meta.dirname, '../../docs/inboxes.md'), 'utf8');

/** The first TypeScript block under `heading`, split into its imports and the rest. */
function guideBlock(heading: string): { imports: string; code: string } {
  const lines = codeBlock(guide, heading).split('\n');
  return { imports: lines.filter((line) => line.startsWith('import ')).join('\n'), code: lines.filter((line) => !line.startsWith('import ')).join('\n') };
}

const seconds = Math.floor(Date.now() / 1000);
const OK = { status: 200, body: { success: true } };
const NOT_APPLIED = { status: 500, body: { success: false, error: 'not_applied' } };
const NOT_CONFIRMED = { status: 409, body: { success: false, error: 'not_confirmed' } };

async function answer(response: { readonly status: number; json(): Promise<unknown> }): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: (await response.json()) };
}

describe('the D1 block, in two isolates on one database', () => {
  // The block's `declare const env` becomes the Worker's env: the rest runs once per isolate, as printed.
  const { imports, code } = guideBlock('### D1');
  const declared = /^declare const env: .*;$/m;
  const worker = `${imports}
let ready: Promise<{ handle(request: Request): Promise<Response> }> | undefined;
export default {
  fetch(request: Request, env: { readonly DB: D1DatabaseLike; readonly API_KEY: string; readonly SECRET_KEY: string }): Promise<Response> {
    ready ??= (async () => {
${code.replace(declared, '')}
      return receiver;
    })();
    return ready.then((receiver) => receiver.handle(request));
  },
};`;
  let miniflare: Miniflare;
  let db: D1DatabaseLike;
  const post = async (isolate: 'one' | 'two', delivery: { headers: Record<string, string>; body: string }) =>
    answer(await miniflare.dispatchFetch(`http://${isolate}.test/webhooks`, { method: 'POST', headers: delivery.headers, body: delivery.body }));
  const payout = (code: string, user: string, amount: number) => signCallback({ ...unsigned.withdrawal, tracking_code: code, status: 'completed', user_id: user, amount }, PROVIDER);
  const rows = async (sql: string, ...values: unknown[]): Promise<unknown[]> => [...((await db.prepare(sql).bind(...values).all()).results ?? [])];

  beforeAll(async () => {
    expect(code).toMatch(declared);
    const script = await bundleWorker(worker);
    const each = { modules: true, script, compatibilityDate: '2025-09-01', d1Databases: { DB: 'payments' }, bindings: { API_KEY: PROVIDER.apiKey, SECRET_KEY: PROVIDER.secretKey } };
    miniflare = new Miniflare({ workers: [{ name: 'one', routes: ['one.test/*'], ...each }, { name: 'two', routes: ['two.test/*'], ...each }, d1Beside('payments')] });
    await miniflare.ready;
    db = d1Of(miniflare);
    // The merchant's order rows, saved when startWithdrawal answered: whose user and amount the block debits.
    await db.prepare('CREATE TABLE orders (tracking_code TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount INTEGER NOT NULL)').run();
    // The block makes its tables with the first request each isolate takes: a payout of no one yet.
    const nobody = payout(`WIT-gdnone1-${seconds - 60}`, 'u-nobody', 1);
    expect(await Promise.all([post('one', nobody), post('two', nobody)])).toEqual([NOT_APPLIED, NOT_APPLIED]);
  }, 60_000);
  afterAll(async () => {
    await miniflare.dispose();
  });

  test('two payouts of 80 against a balance of 100, one per isolate: one applied and debited, the other a 500 with no key; applied once the balance allows it, to the user and amount of the order row', async () => {
    await db.prepare('INSERT INTO balances (user_id, amount) VALUES (?, ?), (?, ?)').bind('u-guard', 100, 'u-elsewhere', 100).run();
    for (const code of [`WIT-gdpay01-${seconds - 60}`, `WIT-gdpay02-${seconds - 60}`]) await db.prepare('INSERT INTO orders VALUES (?, ?, ?)').bind(code, 'u-guard', 80).run();
    const first = payout(`WIT-gdpay01-${seconds - 60}`, 'u-guard', 80);
    // The hash does not cover the user or the amount: the block debits the order row's, not these.
    const second = payout(`WIT-gdpay02-${seconds - 60}`, 'u-elsewhere', 1);
    const answers = await Promise.all([post('one', first), post('two', second)]);
    expect([...answers].sort((a, b) => a.status - b.status)).toEqual([OK, NOT_APPLIED]);
    expect(await rows('SELECT amount FROM balances WHERE user_id = ?', 'u-guard')).toEqual([{ amount: 20 }]);
    const [applied, refused] = answers[0].status === 200 ? [first, second] : [second, first];
    const codeOf = (delivery: { body: string }): string => (JSON.parse(delivery.body) as { tracking_code: string }).tracking_code;
    expect(await rows('SELECT tracking_code, status FROM payorch_callback_inbox WHERE tracking_code IN (?, ?)', codeOf(first), codeOf(second))).toEqual([{ tracking_code: codeOf(applied), status: 'completed' }]);

    // Each redelivery is refused until the balance allows it, then applied once, in either isolate.
    expect(await post('one', refused)).toEqual(NOT_APPLIED);
    await db.prepare('UPDATE balances SET amount = amount + 100 WHERE user_id = ?').bind('u-guard').run();
    expect(await Promise.all([post('one', refused), post('two', refused), post('two', applied)])).toEqual([OK, OK, OK]);
    expect(await rows('SELECT user_id, amount FROM balances ORDER BY user_id')).toEqual([{ user_id: 'u-elsewhere', amount: 100 }, { user_id: 'u-guard', amount: 40 }]);
  });
});

describe('the Durable Object block', () => {
  const { imports, code } = guideBlock('### A Durable Object per merchant');
  // The block's class, with a route for the test to run SQL in the object, and a Worker in front
  // that forwards as the guide says.
  const worker = `${imports}
${code}
export class TestMerchant extends PayorchMerchant {
  readonly sql: DurableObjectStorageLike['sql'];
  constructor(state: { readonly storage: DurableObjectStorageLike }, env: Env) {
    super(state, env);
    this.sql = state.storage.sql;
  }
  override async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== '/test/sql') return super.fetch(request);
    const { sql, values } = (await request.json()) as { sql: string; values: unknown[] };
    return Response.json(this.sql.exec(sql, ...values).toArray());
  }
}
export default {
  fetch(request: Request, env: { readonly MERCHANTS: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } } }): Promise<Response> {
    return env.MERCHANTS.get(env.MERCHANTS.idFromName('merchant-1')).fetch(request);
  },
};`;
  let miniflare: Miniflare;
  let origin: string;
  const sql = async (query: string, ...values: unknown[]): Promise<unknown> => {
    const response = await fetch(`${origin}/test/sql`, { method: 'POST', body: JSON.stringify({ sql: query, values }) });
    if (!response.ok) throw new Error(`${query}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const deposit = (code: string, user: string, amount: number) => signCallback({ ...unsigned.deposit, tracking_code: code, user_id: user, amount }, PROVIDER);
  const post = async (delivery: { headers: Record<string, string>; body: string }) => answer(await fetch(`${origin}/webhooks`, { method: 'POST', headers: delivery.headers, body: delivery.body }));

  beforeAll(async () => {
    miniflare = new Miniflare({
      modules: true,
      script: await bundleWorker(worker),
      compatibilityDate: '2025-09-01',
      durableObjects: { MERCHANTS: { className: 'TestMerchant', useSQLite: true } },
      bindings: { API_KEY: PROVIDER.apiKey, SECRET_KEY: PROVIDER.secretKey },
    });
    origin = (await miniflare.ready).origin;
    await sql('CREATE TABLE balances (user_id TEXT PRIMARY KEY, amount INTEGER NOT NULL DEFAULT 0)');
    await sql('CREATE TABLE orders (tracking_code TEXT PRIMARY KEY, user_id TEXT NOT NULL, max_amount INTEGER NOT NULL)');
  }, 60_000);
  afterAll(async () => {
    await miniflare.dispose();
  });

  test('a deposit for a user with no balance row is a 500 with no key, not applied; once the row exists it is credited once', async () => {
    const code = `MAN-gdo01-${seconds - 60}`;
    await sql('INSERT INTO orders VALUES (?, ?, ?)', code, 'u-gdo', 500);
    const delivery = deposit(code, 'u-gdo', 250);
    expect(await post(delivery)).toEqual(NOT_APPLIED);
    expect(await sql('SELECT status FROM payorch_callback_inbox WHERE tracking_code = ?', code)).toEqual([]);
    await sql('INSERT INTO balances (user_id) VALUES (?)', 'u-gdo');
    // The hash does not cover the user or the amount: a replay naming another user, or above the ceiling, is refused.
    await sql('INSERT INTO balances (user_id) VALUES (?)', 'u-thief');
    expect(await post(deposit(code, 'u-thief', 250))).toEqual(NOT_CONFIRMED);
    expect(await post(deposit(code, 'u-gdo', 501))).toEqual(NOT_CONFIRMED);
    expect(await Promise.all([post(delivery), post(delivery)])).toEqual([OK, OK]);
    expect(await sql('SELECT user_id, amount FROM balances ORDER BY user_id')).toEqual([{ user_id: 'u-gdo', amount: 250 }, { user_id: 'u-thief', amount: 0 }]);
    expect(await sql('SELECT status FROM payorch_callback_inbox WHERE tracking_code = ?', code)).toEqual([{ status: 'completed' }]);
  });
});
