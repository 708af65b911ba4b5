// A callback receiver as a Cloudflare Worker with a D1 inbox: each callback's key and the
// statements its handlers return commit in one db.batch, exactly once. No nodejs_compat.
//
// wrangler.toml:
//   [[d1_databases]]
//   binding = "DB"
//   database_name = "payments"
//   database_id = "..."
// and a migration with d1InboxTableSql() (or createD1InboxTable once), plus your own tables:
//   CREATE TABLE balances (user_id TEXT PRIMARY KEY, amount REAL NOT NULL DEFAULT 0);
//   CREATE TABLE ledger (tracking_code TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount REAL NOT NULL);
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createD1Inbox, pruneD1Inbox } from 'payorch/d1';
import type { D1DatabaseLike, D1InboxContext } from 'payorch/d1';

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
  });
  receiver.on('deposit.completed', async (callback, { db, statements }) => {
    const { tracking_code: code, user_id: user, amount } = callback.payload;
    // Reads run now; throwing answers 500 and records nothing, so the service delivers it again.
    const { results = [] } = await db.prepare('SELECT 1 FROM balances WHERE user_id = ?').bind(user).all();
    if (results.length === 0) throw new Error(`no balance for user ${user} yet`);
    // Writes are returned, not run: they commit in one batch with the callback's key.
    statements.push(
      db.prepare('INSERT INTO ledger (tracking_code, user_id, amount) VALUES (?, ?, ?)').bind(code, user, amount),
      db.prepare('UPDATE balances SET amount = amount + ? WHERE user_id = ?').bind(amount, user),
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
