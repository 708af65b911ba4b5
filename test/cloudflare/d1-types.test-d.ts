import type { D1Database, D1PreparedStatement } from '@cloudflare/workers-types';
import { expectTypeOf, test } from 'vitest';
import { createCallbackReceiver } from '../../src/index.js';
import type { CallbackReceiver } from '../../src/index.js';
import { createD1Inbox } from '../../src/inboxes/d1/index.js';
import type { D1DatabaseLike, D1InboxContext, D1PreparedStatementLike } from '../../src/inboxes/d1/index.js';

test('D1Database and D1PreparedStatement of @cloudflare/workers-types fit the structural types', () => {
  expectTypeOf<D1Database>().toExtend<D1DatabaseLike>();
  expectTypeOf<D1PreparedStatement>().toExtend<D1PreparedStatementLike>();
});

test('an Env typed with D1DatabaseLike, as the examples type it, reads a row with first() and all()', async () => {
  const env = {} as { readonly DB: D1DatabaseLike };
  const order = await env.DB.prepare('SELECT user_id, amount FROM orders WHERE tracking_code = ?').bind('MAN-1').first<{ user_id: string; amount: number }>();
  expectTypeOf(order).toEqualTypeOf<{ user_id: string; amount: number } | null>();
  const userId = await env.DB.prepare('SELECT user_id FROM orders WHERE tracking_code = ?').bind('MAN-1').first<string>('user_id');
  expectTypeOf(userId).toEqualTypeOf<string | null>();
  const { results = [] } = await env.DB.prepare('SELECT user_id FROM orders').all<{ user_id: string }>();
  expectTypeOf(results).toEqualTypeOf<readonly { user_id: string }[]>();
});

test("the generic with workers-types' D1Database: handlers get the binding's own types, raw() included", () => {
  const env = {} as { readonly DB: D1Database };
  const receiver: CallbackReceiver<D1InboxContext<D1Database>> = createCallbackReceiver({ apiKey: 'k', secretKey: 's', inbox: createD1Inbox<D1Database>({ db: env.DB }) });
  receiver.on('deposit.completed', async (_callback, { db, statements }) => {
    expectTypeOf(db).toEqualTypeOf<D1Database>();
    expectTypeOf(statements).toEqualTypeOf<D1PreparedStatement[]>();
    expectTypeOf(await db.prepare('SELECT 1').raw()).toEqualTypeOf<unknown[][]>();
  });
});
