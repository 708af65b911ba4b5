// Deferred callbacks on Cloudflare Queues with a D1 inbox. The Worker's `fetch` answers the service
// as soon as the verified callback is on the queue; its `queue` handler applies each message with
// `receiver.apply(job)`: the callback's key and the statements the handlers return commit in one
// db.batch, exactly once, however often the queue delivers the message. A message whose apply
// fails is retried by the queue, then goes to the dead-letter queue, whose consumer keeps it in D1
// until you replay it. No nodejs_compat.
//
// wrangler.toml:
//   [[queues.producers]]
//   binding = "CALLBACKS"
//   queue = "payorch-callbacks"
//
//   [[queues.consumers]]
//   queue = "payorch-callbacks"
//   max_retries = 10
//   retry_delay = 60
//   dead_letter_queue = "payorch-callbacks-dead"
//
//   [[queues.consumers]]
//   queue = "payorch-callbacks-dead"
//   max_retries = 100      # a dead-letter queue has no dead letters of its own: past this, a job is gone
//   retry_delay = 300
//
//   [[d1_databases]]
//   binding = "DB"
//   database_name = "payments"
//   database_id = "..."
//
//   [vars]
//   ORDERS_URL = "https://orders.example/paid"
//
// a migration with d1InboxTableSql(), D1_DEAD_LETTERS_TABLE_SQL and SQLITE_TABLES_SQL of
// order-tables.ts (orders, balances and ledger, amounts in integer kuruş), and the secrets
// (`wrangler secret put`): PAYORCH_PROVIDER_API_KEY, PAYORCH_PROVIDER_SECRET_KEY, REPLAY_TOKEN (a
// long random string; without it the replay route answers 404).
import { callbackKeyString, createCallbackReceiver } from 'payorch';
import type { CallbackJob, CallbackReceiver } from 'payorch';
import { createD1Inbox } from 'payorch/d1';
import type { D1DatabaseLike, D1InboxContext } from 'payorch/d1';
import { d1Order } from './order-tables.js';
import { kurus, orderMatches } from './orders.js';

// Only the handlers (and types) are exported from this file: workerd takes every named export of
// a Worker's main module for an entrypoint, and refuses to start on anything else (a string).

// The few members of @cloudflare/workers-types that this file uses; the real types fit them.
interface Queue<Body> {
  send(body: Body): Promise<void>;
  sendBatch(messages: readonly { readonly body: Body }[]): Promise<void>;
}
interface Message<Body> {
  readonly id: string;
  readonly body: Body;
  readonly attempts: number;
  ack(): void;
  retry(): void;
}
interface MessageBatch<Body> {
  readonly queue: string;
  readonly messages: readonly Message<Body>[];
}

export interface Env {
  readonly CALLBACKS: Queue<CallbackJob>;
  readonly DB: D1DatabaseLike;
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
  readonly REPLAY_TOKEN?: string;
  // Where the order service is told of a deposit: outside D1, so at least once.
  readonly ORDERS_URL: string;
}

const DEAD_QUEUE = 'payorch-callbacks-dead';

/** Cloudflare Queues' limits of one sendBatch: 100 messages and 256 KB (of 1000 bytes) in all, each message counting about 100 bytes more. */
const MAX_BATCH_MESSAGES = 100;
const MAX_BATCH_BYTES = 256_000;
const MESSAGE_OVERHEAD_BYTES = 100;

let receiver: CallbackReceiver<D1InboxContext> | undefined;

// Workers get their bindings with the first event: the receiver is made then, once per isolate.
function receiverFor(env: Env): CallbackReceiver<D1InboxContext> {
  if (receiver !== undefined) return receiver;
  receiver = createCallbackReceiver({
    apiKey: env.PAYORCH_PROVIDER_API_KEY,
    secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
    inbox: createD1Inbox({ db: env.DB }),
    // The 200 waits for this: a job is a plain JSON object, and the queue stores it as it is.
    enqueue: (job) => env.CALLBACKS.send(job),
    // The hash covers tracking_code, status and timestamp only: the user and the amount must be
    // those of your order row (a deposit's at most its ceiling, spec 4.5). A refusal rejects
    // `apply`: the message is retried, then kept in the dead letters for a person to look at.
    confirm: async (callback, { db }) => orderMatches(await d1Order(db, callback.payload.tracking_code), callback),
  });
  receiver.on('deposit.completed', async (callback, { db, statements, key }) => {
    const { tracking_code: code, amount } = callback.payload;
    // Reads run now; throwing records nothing, and the queue delivers the message again.
    const order = await d1Order(db, code);
    if (order === undefined) throw new Error(`confirm found the order of ${code}`);
    const user = order.userId;
    const { results = [] } = await db.prepare('SELECT 1 FROM balances WHERE user_id = ?').bind(user).all();
    if (results.length === 0) throw new Error(`no balance for user ${user} yet`);
    // Outside the batch, so it runs again on a retry, and possibly at once for two copies: the
    // callback's key makes it one order update at the order service.
    const told = await fetch(env.ORDERS_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': callbackKeyString(key) },
      body: JSON.stringify({ tracking_code: code, paid: amount }),
    });
    if (!told.ok) throw new Error(`the order service answered ${told.status}`);
    // Writes are returned, not run: they commit in one batch with the callback's key. The order's
    // user is credited with the amount paid, in kuruş.
    statements.push(
      db.prepare('INSERT INTO ledger (tracking_code, user_id, amount_kurus) VALUES (?, ?, ?)').bind(code, user, kurus(amount)),
      db.prepare('UPDATE balances SET amount_kurus = amount_kurus + ? WHERE user_id = ?').bind(kurus(amount), user),
    );
  });
  return receiver;
}

// Each message acknowledged or retried on its own; the messages of a batch apply side by side.
async function applyAll(batch: MessageBatch<CallbackJob>, env: Env): Promise<void> {
  const { apply } = receiverFor(env);
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await apply(message.body);
        message.ack();
      } catch (error) {
        // A CallbackJobError retries in vain and ends in the dead letters too: invalid_signature (a
        // job written or changed without the secret key), look at who wrote it before you replay
        // it; seal_key_expired (sealed before a key rotation whose window closed), re-seal it with
        // resealCallbackJob first (docs/webhooks.md, "Rotating the keys").
        console.error(`callback job ${message.id} (attempt ${message.attempts}) not applied:`, error instanceof Error ? error.message : error);
        // The consumer's retry_delay; past max_retries the message goes to the dead-letter queue.
        message.retry();
      }
    }),
  );
}

// The dead-letter queue's consumer: each dead job is kept in D1 (`SELECT * FROM payorch_dead_letters`).
async function keepDeadLetters(batch: MessageBatch<CallbackJob>, env: Env): Promise<void> {
  await env.DB.batch(
    batch.messages.map((message) =>
      env.DB.prepare('INSERT OR IGNORE INTO payorch_dead_letters (message_id, job, dead_at) VALUES (?, ?, ?)').bind(message.id, JSON.stringify(message.body), Date.now()),
    ),
  );
  for (const message of batch.messages) {
    console.error(`callback job ${message.id} is dead: kept in payorch_dead_letters`);
    message.ack();
  }
}

/**
 * Sends the oldest kept dead jobs to the queue again, as many as one sendBatch takes (100
 * messages, 256 KB in all), and deletes exactly those once sent; call it again while `remaining`
 * is above 0. A replayed job is checked and applied like any other: applied once, even if a copy of
 * it was applied meanwhile. One refused again (its record past the inbox's retention, a job
 * sealed before a key rotation whose window closed: re-seal it, `confirm`) fails its retries and is kept here again, under a new message id.
 */
async function replayDeadLetters(env: Env): Promise<{ readonly replayed: number; readonly remaining: number }> {
  const { results = [] } = await env.DB.prepare('SELECT message_id, job FROM payorch_dead_letters ORDER BY dead_at, message_id LIMIT ?').bind(MAX_BATCH_MESSAGES).all();
  const rows = results as readonly { readonly message_id: string; readonly job: string }[];
  const sent: typeof rows[number][] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = new TextEncoder().encode(row.job).length + MESSAGE_OVERHEAD_BYTES;
    // The first always goes: it was one message before, so it fits in a batch of its own.
    if (sent.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
    sent.push(row);
    bytes += size;
  }
  if (sent.length > 0) {
    await env.CALLBACKS.sendBatch(sent.map((row) => ({ body: JSON.parse(row.job) as CallbackJob })));
    // Sent before deleted: a failure in between replays a job twice, which the inbox makes harmless.
    await env.DB.batch(sent.map((row) => env.DB.prepare('DELETE FROM payorch_dead_letters WHERE message_id = ?').bind(row.message_id)));
  }
  const left = await env.DB.prepare('SELECT count(*) AS remaining FROM payorch_dead_letters').all();
  return { replayed: sent.length, remaining: (left.results?.[0] as { remaining: number } | undefined)?.remaining ?? 0 };
}

// The token compared as digests, in time that does not depend on where they differ.
async function isReplayToken(authorization: string | null, token: string | undefined): Promise<boolean> {
  if (token === undefined || token === '' || authorization === null) return false;
  const digest = async (text: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  const [given, expected] = await Promise.all([digest(authorization), digest(`Bearer ${token}`)]);
  let difference = 0;
  for (let index = 0; index < expected.length; index += 1) difference |= given[index]! ^ expected[index]!;
  return difference === 0;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/webhooks/payorch') return receiverFor(env).handle(request);
    if (pathname === '/dead-letters/replay' && request.method === 'POST' && (await isReplayToken(request.headers.get('authorization'), env.REPLAY_TOKEN))) {
      return Response.json(await replayDeadLetters(env));
    }
    return new Response(null, { status: 404 });
  },

  async queue(batch: MessageBatch<CallbackJob>, env: Env): Promise<void> {
    await (batch.queue === DEAD_QUEUE ? keepDeadLetters(batch, env) : applyAll(batch, env));
  },
};
