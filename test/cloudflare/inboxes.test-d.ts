import type { Miniflare } from 'miniflare';
import { expectTypeOf, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import { createD1Inbox } from '../../src/inboxes/d1/index.js';
import { createDurableObjectInbox } from '../../src/inboxes/durable-object/index.js';
import type { DurableObjectStorageLike } from '../../src/inboxes/durable-object/index.js';

// miniflare's D1Database is a copy of @cloudflare/workers-types' own.
type D1Database = Awaited<ReturnType<Miniflare['getD1Database']>>;
type D1PreparedStatement = ReturnType<D1Database['prepare']>;
// A storage with more than the inbox uses, as ctx.storage has.
interface DurableObjectStorage extends DurableObjectStorageLike {
  setAlarm(scheduledTime: number): Promise<void>;
}
declare const db: D1Database;
declare const storage: DurableObjectStorage;

test('a D1 handler gets the binding’s own types: its database, and an array of its prepared statements', () => {
  const receiver = createCallbackReceiver({ apiKey: 'k', secretKey: 's', inbox: createD1Inbox({ db }) });
  receiver.on('deposit.completed', (_callback, context) => {
    expectTypeOf(context.db).toEqualTypeOf<D1Database>();
    expectTypeOf(context.statements).toEqualTypeOf<D1PreparedStatement[]>();
    expectTypeOf(context.appliedStatuses).toEqualTypeOf<readonly string[]>();
  });
});

test('a Durable Object handler gets the object’s own storage type', () => {
  const receiver = createCallbackReceiver({ apiKey: 'k', secretKey: 's', inbox: createDurableObjectInbox({ storage }) });
  receiver.on('deposit.completed', (_callback, context) => {
    expectTypeOf(context.storage).toEqualTypeOf<DurableObjectStorage>();
    expectTypeOf(context.key.status).toEqualTypeOf<string>();
  });
});

test('an object without prepare and batch is no D1 database', () => {
  // @ts-expect-error db must have prepare() and batch()
  createD1Inbox({ db: { prepare: () => undefined } });
});
