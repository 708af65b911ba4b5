// The inbox's table does not move (docs/inboxes.md): named with its schema when first used, so that
// a handler's `SET search_path` (a schema per tenant) changes nothing. Against a real server.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createCallbackReceiver, RequestValidationError, signCallback } from '../../src/index.js';
import { createPostgresInboxTable, createPostgresInbox, prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import type { PostgresInboxContext } from '../../src/inboxes/postgres/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver, serveNode } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

type Context = PostgresInboxContext<pg.PoolClient>;
const OK = { status: 200, body: { success: true } };
const [tenantA, tenantB] = [`tenant_a_${process.pid}`, `tenant_b_${process.pid}`];
const pools: pg.Pool[] = [];
let admin: pg.Pool;

/** Connections whose search_path starts at tenant A's schema, as a tenant-per-schema application sets it. */
function tenantPool(max: number): pg.Pool {
  const created = new pg.Pool({ connectionString: inject('postgresUrl'), max, options: `-c search_path=${tenantA}` });
  created.on('error', () => undefined);
  pools.push(created);
  return created;
}

async function keysIn(schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ tracking_code: string }>(`SELECT tracking_code FROM ${schema}.payorch_callback_inbox WHERE tracking_code <> '' ORDER BY tracking_code`);
  return rows.map((row) => row.tracking_code);
}

beforeAll(async () => {
  admin = new pg.Pool({ connectionString: inject('postgresUrl'), max: 1 });
  await admin.query(`CREATE SCHEMA ${tenantA}; CREATE SCHEMA ${tenantB}`);
  // Tenant A's table made as an application makes it: unqualified, in the current schema.
  await createPostgresInboxTable({ pool: tenantPool(1) });
  await admin.query(`CREATE TABLE ${tenantB}.payorch_callback_inbox (LIKE ${tenantA}.payorch_callback_inbox INCLUDING ALL)`);
});
afterAll(async () => {
  await admin.query(`DROP SCHEMA ${tenantA} CASCADE; DROP SCHEMA ${tenantB} CASCADE`);
  await Promise.all([admin, ...pools].map((each) => each.end()));
});

describe('a handler that runs SET search_path on its client', () => {
  test('does not move the inbox\'s table: the redelivery is still a duplicate, and every key is in the schema current at first use', async () => {
    // One connection, so the next callback gets the connection whose search_path the handler changed.
    const pool = tenantPool(1);
    const handler = vi.fn(async (_callback: unknown, { client }: Context) => {
      await client.query(`SET search_path TO ${tenantB}`);
    });
    const receiver = createCallbackReceiver<Context>({ ...PROVIDER, inbox: createPostgresInbox({ pool }), onError: () => undefined }).on('deposit.completed', handler);
    const served = await serveNode(receiver.nodeHandler);
    try {
      const delivery = signCallback({ ...unsigned.deposit, tracking_code: 'MAN-tenant1-1763812000' }, PROVIDER);
      expect(await deliver(served.url, delivery)).toEqual(OK);
      expect((await pool.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]?.schema).toBe(tenantB);
      expect(await deliver(served.url, delivery)).toEqual(OK);
      expect(await deliver(served.url, signCallback({ ...unsigned.deposit, tracking_code: 'MAN-tenant2-1763812000' }, PROVIDER))).toEqual(OK);
      expect(handler).toHaveBeenCalledTimes(2);
      expect(await keysIn(tenantA)).toEqual(['MAN-tenant1-1763812000', 'MAN-tenant2-1763812000']);
      expect(await keysIn(tenantB)).toEqual([]);
    } finally {
      await served.close();
    }
  });

  test('schema names the table\'s schema whatever search_path says, and createPostgresInboxTable and prunePostgresInbox with the same options resolve that table', async () => {
    const pool = tenantPool(1);
    await createPostgresInboxTable({ pool, schema: tenantB });
    const inbox = createPostgresInbox({ pool, schema: tenantB });
    const key = { merchantId: 'acct', trackingCode: 'MAN-tenant3-1000', status: 'completed' };
    expect(await inbox.process(key, () => Promise.resolve())).toBe('applied');
    expect(await keysIn(tenantB)).toEqual(['MAN-tenant3-1000']);
    expect(await prunePostgresInbox({ pool, schema: tenantB })).toBe(1);
    expect(await keysIn(tenantB)).toEqual([]);
    expect(await keysIn(tenantA)).not.toEqual([]);
  });

  test('refuses a schema given twice, in schema and in table, naming the option', () => {
    expect(() => createPostgresInbox({ pool: admin, schema: 'billing', table: 'billing.inbox' })).toThrow(RequestValidationError);
    expect(() => createPostgresInbox({ pool: admin, schema: 'billing', table: 'billing.inbox' })).toThrow(/schema: must be left out when `table` names its schema/);
    expect(() => createPostgresInbox({ pool: admin, schema: 'bad"schema' })).toThrow(/schema: must be a name of letters, digits and _ \(up to 63\)/);
  });
});
