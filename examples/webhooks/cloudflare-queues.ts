// Deferred callbacks on Cloudflare Queues with a D1 inbox, through payorch/cloudflare-queues:
// `fetch` answers the service once the verified callback is on the queue; `queue` applies each
// message once (its key and your statements commit in one db.batch), retries what fails and keeps
// dead letters in D1 until you replay (POST /dead-letters/replay, with the token) or purge them.
// Every minute a Cron Trigger sweeps pending transfers and reconciles card payments whose callback
// never came. No nodejs_compat. wrangler.toml: the queues of payorch/cloudflare-queues' docs, a D1
// binding DB, `[triggers] crons = ["* * * * *"]`, the vars PAYORCH_BASE_URL and ORDERS_URL; a
// migration with d1InboxTableSql(), d1DeadLettersTableSql() and SQLITE_TABLES_SQL (order-tables.ts);
// secrets: the provider's and dealer's keys, REPLAY_TOKEN (openssl rand -hex 32; unset, no route).
import { DealerClient, ProviderClient, applyTransferStatuses, callbackKeyString, createCallbackReceiver } from 'payorch';
import { createCloudflareQueue } from 'payorch/cloudflare-queues';
import type { QueueBatchLike, QueueProducerLike } from 'payorch/cloudflare-queues';
import { createD1Inbox } from 'payorch/d1';
import type { D1DatabaseLike, D1InboxContext } from 'payorch/d1';
import { d1Order } from './order-tables.js';
import { kurus, orderMatches } from './orders.js';

// Only handlers and types are exported: workerd takes any other named export for an entrypoint, and fails.
export interface Env {
  readonly CALLBACKS: QueueProducerLike;
  readonly DB: D1DatabaseLike;
  readonly PAYORCH_BASE_URL: string;
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
  readonly PAYORCH_CREDENTIAL_KEY: string;
  readonly PAYORCH_DEALER_API_KEY: string;
  readonly PAYORCH_DEALER_SECRET_KEY: string;
  readonly REPLAY_TOKEN?: string;
  readonly ORDERS_URL: string;
}

// The order's user (not the unsigned user_id) is credited with the amount paid, with the callback's key.
async function credit(code: string, amount: number, { db, statements }: D1InboxContext): Promise<void> {
  const order = await d1Order(db, code);
  if (order === undefined) throw new Error(`confirm found the order of ${code}`);
  statements.push(
    db.prepare('INSERT INTO ledger (tracking_code, user_id, amount_kurus) VALUES (?, ?, ?)').bind(code, order.userId, kurus(amount)),
    db.prepare('INSERT INTO balances (user_id, amount_kurus) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET amount_kurus = amount_kurus + excluded.amount_kurus').bind(order.userId, kurus(amount)),
  );
}

// Workers get their bindings with the first event: made then, once per isolate.
let made: ReturnType<typeof setup> | undefined;
function setup(env: Env) {
  const { PAYORCH_BASE_URL: baseUrl, PAYORCH_PROVIDER_API_KEY: apiKey, PAYORCH_PROVIDER_SECRET_KEY: secretKey } = env;
  const queue = createCloudflareQueue({ queue: env.CALLBACKS, db: env.DB });
  // The hash covers tracking_code, status and timestamp only: `confirm` holds the user and the amount to
  // your order row's. A refusal fails the job, which ends in the dead letters for a person to see.
  const receiver = createCallbackReceiver({ apiKey, secretKey, inbox: createD1Inbox({ db: env.DB }), enqueue: queue.enqueue, confirm: async (callback, { db }) => orderMatches(await d1Order(db, callback.payload.tracking_code), callback) });
  receiver.on('deposit.completed', async (callback, context) => {
    // The order service, outside D1: at least once, maybe twice at once; the callback's key makes it one update.
    const told = await fetch(env.ORDERS_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': callbackKeyString(context.key) },
      body: JSON.stringify({ tracking_code: callback.payload.tracking_code, paid: callback.payload.amount }),
    });
    if (!told.ok) throw new Error(`the order service answered ${told.status}`);
    await credit(callback.payload.tracking_code, callback.payload.amount, context);
  });
  // A card payment's end, from its callback or from a status read of the schedule.
  receiver.on('creditCard', async ({ payload }, context) => {
    if (payload.status === 'success') await credit(payload.tracking_code, payload.amount, context);
    context.statements.push(context.db.prepare('UPDATE orders SET status = ? WHERE tracking_code = ?').bind(payload.status, payload.tracking_code));
  });
  const provider = new ProviderClient({ baseUrl, apiKey, secretKey, credentialKey: env.PAYORCH_CREDENTIAL_KEY });
  const dealer = new DealerClient({ baseUrl, apiKey: env.PAYORCH_DEALER_API_KEY, secretKey: env.PAYORCH_DEALER_SECRET_KEY });
  return { queue, receiver, provider, dealer };
}

const ids = async (db: D1DatabaseLike, sql: string) => ((await db.prepare(sql).all<{ id: string }>()).results ?? []).map((row) => row.id);

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { queue, receiver } = (made ??= setup(env));
    const { pathname } = new URL(request.url);
    if (pathname === '/webhooks/payorch') return receiver.handle(request);
    if (pathname === '/dead-letters/replay') return queue.replayRoute({ token: env.REPLAY_TOKEN })(request);
    return new Response(null, { status: 404 });
  },
  queue(batch: QueueBatchLike, env: Env): Promise<void> {
    const { queue, receiver, provider } = (made ??= setup(env));
    // The provider reads again the status of a job the schedule's reconcile queued.
    return queue.work(receiver, { provider })(batch);
  },
  // Every minute. A tick that fails is the next one's work: nothing is recorded for it.
  async scheduled(_controller: unknown, env: Env): Promise<void> {
    const { receiver, provider, dealer } = (made ??= setup(env));
    // Transfers have no callback: each end read is applied once, through the inbox, with the payout's update.
    await applyTransferStatuses({
      dealer,
      transferIds: await ids(env.DB, "SELECT transfer_id AS id FROM payouts WHERE status = 'pending' LIMIT 1000"),
      inbox: createD1Inbox({ db: env.DB }),
      merchantId: 'dealer',
      onStatus: (transfer, { db, statements }) => void statements.push(db.prepare('UPDATE payouts SET status = ? WHERE transfer_id = ?').bind(transfer.status, transfer.transfer_id)),
    });
    // Card payments still waiting: each end read becomes a job, applied by `queue` under its callback's key.
    await receiver.reconcile({ provider, trackingCodes: await ids(env.DB, "SELECT tracking_code AS id FROM orders WHERE kind = 'creditCard' AND status = 'pending' LIMIT 1000") });
  },
};
