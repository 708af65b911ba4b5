// A callback receiver inside a Cloudflare Durable Object with SQLite storage, one object per
// account: the callback's key and the object's own SQL commit in one storage.transaction, and
// copies of one callback are serialised by the object. No nodejs_compat.
//
// wrangler.toml:
//   [[durable_objects.bindings]]
//   name = "ACCOUNTS"
//   class_name = "PayorchAccount"
//   [[migrations]]
//   tag = "v1"
//   new_sqlite_classes = ["PayorchAccount"]
//
// Your order rows live in the object too (SQLITE_TABLES_SQL of order-tables.ts, amounts in integer
// kuruş), written with `saveOrder` when startDeposit or startWithdrawal answered, so that
// `confirm` reads them in the same transaction as the key.
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createDurableObjectInbox, pruneDurableObjectInbox } from 'payorch/durable-object';
import type { DurableObjectInboxContext, DurableObjectStorageLike } from 'payorch/durable-object';
import { SQLITE_TABLES_SQL, sqliteOrder } from './order-tables.js';
import type { SqliteOrderRow } from './order-tables.js';
import { kurus, orderMatches } from './orders.js';
import type { Order } from './orders.js';

// The parts of the Workers types this file uses; @cloudflare/workers-types' DurableObjectState and
// DurableObjectNamespace fit.
interface State {
  readonly storage: DurableObjectStorageLike & { setAlarm(scheduledTime: number): Promise<void> };
}
interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export interface Env {
  readonly ACCOUNTS: Namespace;
  readonly PAYORCH_PROVIDER_API_KEY: string;
  readonly PAYORCH_PROVIDER_SECRET_KEY: string;
}

/** One object per account of the service: its inbox, and the balances its callbacks move. */
export class PayorchAccount {
  readonly receiver: CallbackReceiver<DurableObjectInboxContext>;

  constructor(readonly state: State, env: Env) {
    for (const statement of SQLITE_TABLES_SQL) state.storage.sql.exec(statement);
    this.receiver = createCallbackReceiver({
      apiKey: env.PAYORCH_PROVIDER_API_KEY,
      secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
      inbox: createDurableObjectInbox({ storage: state.storage }),
      // The hash covers tracking_code, status and timestamp only: the user and the amount must be
      // those of your order row (a deposit's at most its ceiling, spec 4.5). `false` answers 409.
      confirm: (callback, { storage }) => Promise.resolve(orderMatches(this.orderOf(storage, callback.payload.tracking_code), callback)),
    });
    // Inside the inbox's transaction: this UPDATE commits with the key, or not at all. The
    // transaction holds the whole object until the handler returns, so no fetch() in here.
    this.receiver.on('deposit.completed', (callback, { storage }) => {
      const { tracking_code: code, amount } = callback.payload;
      const order = this.orderOf(storage, code);
      if (order === undefined) throw new Error(`confirm found the order of ${code}`);
      // The order's user is credited with the amount paid, in kuruş.
      const update = storage.sql.exec('UPDATE balances SET amount_kurus = amount_kurus + ? WHERE user_id = ?', kurus(amount), order.userId);
      update.toArray();
      // Throwing rolls the transaction back, key included; the service delivers it again.
      if (update.rowsWritten === 0) throw new Error(`no balance for user ${order.userId} yet`);
      storage.sql.exec('INSERT INTO ledger (tracking_code, user_id, amount_kurus) VALUES (?, ?, ?)', code, order.userId, kurus(amount)).toArray();
    });
  }

  /** Saves your order row of a payment you started, before the customer is sent to pay (call it from your code in this object). */
  saveOrder(trackingCode: string, order: Order): void {
    const ceiling = order.kind === 'deposit' ? kurus(order.maxAmount) : null;
    this.state.storage.sql.exec('INSERT INTO orders (tracking_code, kind, user_id, amount_kurus, max_amount_kurus) VALUES (?, ?, ?, ?, ?)', trackingCode, order.kind, order.userId, kurus(order.amount), ceiling).toArray();
  }

  private orderOf(storage: DurableObjectStorageLike, trackingCode: string): Order | undefined {
    const [row] = storage.sql.exec('SELECT kind, user_id, amount_kurus, max_amount_kurus FROM orders WHERE tracking_code = ?', trackingCode).toArray();
    return sqliteOrder(row as SqliteOrderRow | undefined);
  }

  fetch(request: Request): Promise<Response> {
    return this.receiver.handle(request);
  }

  // Daily: keys of records older than 90 days go, and callbacks of such records are refused from
  // then on, never applied twice. Schedule the first alarm once (setAlarm) when the object starts.
  async alarm(): Promise<void> {
    await pruneDurableObjectInbox({ storage: this.state.storage });
    await this.state.storage.setAlarm(Date.now() + 86_400_000);
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname !== '/webhooks/payorch') return Promise.resolve(new Response(null, { status: 404 }));
    // One account here; several accounts of the service get one object each, by name.
    return env.ACCOUNTS.get(env.ACCOUNTS.idFromName('provider')).fetch(request);
  },
};
