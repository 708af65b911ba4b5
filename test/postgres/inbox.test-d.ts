import type pg from 'pg';
import { expectTypeOf, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import { createPostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresClientOf } from '../../src/inboxes/postgres/index.js';

declare const pool: pg.Pool;

test('a handler gets the pool’s own client type, pg’s PoolClient for a pg Pool', () => {
  expectTypeOf<PostgresClientOf<pg.Pool>>().toEqualTypeOf<pg.PoolClient>();
  const receiver = createCallbackReceiver({ apiKey: 'k', secretKey: 's', inbox: createPostgresInbox({ pool }) });
  receiver.on('deposit.completed', (callback, context) => {
    expectTypeOf(context.client).toEqualTypeOf<pg.PoolClient>();
    expectTypeOf(context.key.trackingCode).toEqualTypeOf<string>();
    expectTypeOf(callback.payload.status).toEqualTypeOf<'completed'>();
  });
});

test('a pool whose clients run text and named statements and report the command tag, as pg\'s do, is enough', () => {
  const minimal = {
    connect: () =>
      Promise.resolve({
        query: (_statement: string | { readonly name: string; readonly text: string; readonly values: unknown[] }, _values?: unknown[]) => Promise.resolve({ command: 'COMMIT', rowCount: 0 }),
        release: () => undefined,
        on: () => undefined,
        removeListener: () => undefined,
      }),
  };
  expectTypeOf(createPostgresInbox({ pool: minimal })).not.toBeNever();
  const tagless = { connect: async () => ({ ...(await minimal.connect()), query: () => Promise.resolve({ rowCount: 0 }) }) };
  // @ts-expect-error without the command tag, a COMMIT that PostgreSQL rolled back would read as committed
  createPostgresInbox({ pool: tagless });
  // @ts-expect-error a schema is a name, not a number
  createPostgresInbox({ pool, schema: 1 });
});
