// A callback receiver as a Cloudflare Worker with a D1 inbox: each callback's key and the
// statements its handlers return commit in one db.batch, exactly once. No nodejs_compat.
//
// wrangler.toml:
//   [[d1_databases]]
//   binding = "DB"
//   database_name = "payments"
//   database_id = "..."
// and a migration with d1InboxTableSql() (or createD1InboxTable once), plus your own tables
// (SQLITE_TABLES_SQL of order-tables.ts: orders, balances and ledger, amounts in integer kuruş).
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createD1Inbox, pruneD1Inbox } from 'payorch/d1';
import type { D1DatabaseLike, D1InboxContext } from 'payorch/d1';
import { d1Order } from './order-tables.js';
import { kurus, orderMatches } from './orders.js';

export interface Env {
  // D1Database from @cloudflare/workers-types fits here too.
  readonly DB: D1DatabaseLike;
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
}

let receiver: CallbackReceiver<D1InboxContext> | undefined;

// Workers get their bindings with the first request: the receiver is made then, once per isolate.
function receiverFor(env: Env): CallbackReceiver<D1InboxContext> {
  if (receiver !== undefined) return receiver;
  receiver = createCallbackReceiver({
    apiKey: env.PAYORCH_PROVIDER_API_KEY,
    secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
    inbox: createD1Inbox({ db: env.DB }),
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row (a deposit's at most its ceiling, spec 4.5). `false` answers 409.
    confirm: async (callback, { db }) => orderMatches(await d1Order(db, callback.payload.tracking_code), callback),
  });
  receiver.on('deposit.completed', async (callback, { db, statements }) => {
    const { tracking_code: code, amount } = callback.payload;
    // Reads run now; throwing answers 500 and records nothing, so the service delivers it again.
    const order = await d1Order(db, code);
    if (order === undefined) throw new Error(`confirm found the order of ${code}`);
    const { results = [] } = await db.prepare('SELECT 1 FROM balances WHERE user_id = ?').bind(order.userId).all();
    if (results.length === 0) throw new Error(`no balance for user ${order.userId} yet`);
    // Writes are returned, not run: they commit in one batch with the callback's key. The order's
    // user is credited with the amount paid, in kuruş.
    statements.push(
      db.prepare('INSERT INTO ledger (tracking_code, user_id, amount_kurus) VALUES (?, ?, ?)').bind(code, order.userId, kurus(amount)),
      db.prepare('UPDATE balances SET amount_kurus = amount_kurus + ? WHERE user_id = ?').bind(kurus(amount), order.userId),
    );
  });
  return receiver;
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname !== '/webhooks/payorch') return Promise.resolve(new Response(null, { status: 404 }));
    return receiverFor(env).handle(request);
  },
  // A Cron Trigger (`[triggers] crons = ["17 3 * * *"]`): keys of records older than 90 days go,
  // and callbacks of such records are refused from then on, never applied twice.
  async scheduled(_controller: unknown, env: Env): Promise<void> {
    console.log(`pruned ${await pruneD1Inbox({ db: env.DB })} callback keys`);
  },
};
