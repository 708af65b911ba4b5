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
import { createCallbackReceiver } from 'payorch';
import type { CallbackReceiver } from 'payorch';
import { createDurableObjectInbox, pruneDurableObjectInbox } from 'payorch/durable-object';
import type { DurableObjectInboxContext, DurableObjectStorageLike } from 'payorch/durable-object';

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
    state.storage.sql.exec('CREATE TABLE IF NOT EXISTS balances (user_id TEXT PRIMARY KEY, amount REAL NOT NULL DEFAULT 0)');
    this.receiver = createCallbackReceiver({
      apiKey: env.PAYORCH_PROVIDER_API_KEY,
      secretKey: env.PAYORCH_PROVIDER_SECRET_KEY,
      inbox: createDurableObjectInbox(state.storage),
    });
    // Inside the inbox's transaction: this UPDATE commits with the key, or not at all. The
    // transaction holds the whole object until the handler returns, so no fetch() in here.
    this.receiver.on('deposit.completed', (callback, { storage }) => {
      const { user_id: user, amount } = callback.payload;
      const update = storage.sql.exec('UPDATE balances SET amount = amount + ? WHERE user_id = ?', amount, user);
      update.toArray();
      // Throwing rolls the transaction back, key included; the service delivers it again.
      if (update.rowsWritten === 0) throw new Error(`no balance for user ${user} yet`);
    });
  }

  fetch(request: Request): Promise<Response> {
    return this.receiver.handle(request);
  }

  // Daily: keys of records older than 90 days go, and callbacks of such records are refused from
  // then on, never applied twice. Schedule the first alarm once (setAlarm) when the object starts.
  async alarm(): Promise<void> {
    await pruneDurableObjectInbox(this.state.storage);
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
