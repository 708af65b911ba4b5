import { describe, expect, test } from 'vitest';
import { guardTransaction, transactionControl } from '../../src/inboxes/postgres/transaction-control.js';

// What a handler's query may not send on the inbox's client, told from its text as PostgreSQL reads it.
describe('transactionControl', () => {
  test.each([
    ['BEGIN', 'BEGIN'],
    ['begin;', 'BEGIN'],
    ['BEGIN ISOLATION LEVEL SERIALIZABLE', 'BEGIN'],
    ['  -- the helper\n  START TRANSACTION', 'START TRANSACTION'],
    ['COMMIT', 'COMMIT'],
    ['COMMIT AND CHAIN', 'COMMIT'],
    ['commit prepared \'x\'', 'COMMIT'],
    ['END', 'END'],
    ['end transaction', 'END'],
    ['ABORT', 'ABORT'],
    ['ROLLBACK', 'ROLLBACK'],
    ['ROLLBACK WORK', 'ROLLBACK'],
    ['ROLLBACK AND NO CHAIN', 'ROLLBACK'],
    ["PREPARE TRANSACTION 'payout-1'", 'PREPARE TRANSACTION'],
    ['/* a /* nested */ comment */ ROLLBACK', 'ROLLBACK'],
    ["INSERT INTO ledger VALUES ('a;b'); COMMIT", 'COMMIT'],
    ['UPDATE balances SET amount = amount + 1; ROLLBACK; BEGIN', 'ROLLBACK'],
    ["SELECT E'it\\'s; COMMIT'; END", 'END'],
    ['CREATE FUNCTION one() RETURNS int LANGUAGE SQL BEGIN ATOMIC SELECT 1; END; COMMIT', 'COMMIT'],
    ['SELECT 1; -- a comment PostgreSQL ends at a carriage return\rROLLBACK', 'ROLLBACK'],
    ['SELECT 1 AS é$x$; ROLLBACK', 'ROLLBACK'],
  ])('%j ends the transaction (%s)', (text, statement) => {
    expect(transactionControl(text)).toBe(statement);
  });

  test.each([
    'SELECT 1',
    'INSERT INTO ledger (tracking_code, amount) VALUES ($1, $2)',
    'SAVEPOINT helper',
    'RELEASE SAVEPOINT helper',
    'ROLLBACK TO SAVEPOINT helper',
    'rollback to helper',
    'ROLLBACK TRANSACTION TO SAVEPOINT helper',
    'PREPARE credit (text, int) AS INSERT INTO ledger VALUES ($1, $2)',
    "SELECT 'BEGIN; COMMIT'",
    'SELECT "commit" FROM t',
    "SELECT 'it''s; ROLLBACK'",
    'DO $$ BEGIN PERFORM 1; END $$',
    'DO $body$ BEGIN RAISE NOTICE $$;COMMIT$$; END $body$',
    'SELECT 1 -- ; COMMIT',
    'SELECT 1 /* ; ROLLBACK */',
    'SELECT begin_at, end_at FROM payouts',
    'SET LOCAL lock_timeout = 1000',
    `INSERT INTO ledger (note) VALUES ${Array.from({ length: 2_000 }, (_, n) => `('begin ${String(n)}')`).join(', ')}`,
    'LOCK TABLE ledger IN SHARE ROW EXCLUSIVE MODE',
    'CREATE FUNCTION fee(amount int) RETURNS int LANGUAGE SQL BEGIN ATOMIC SELECT CASE WHEN amount > 100 THEN 1 ELSE 0 END; SELECT 2; END',
    'CREATE PROCEDURE settle() LANGUAGE SQL BEGIN ATOMIC INSERT INTO ledger VALUES (1); END; SELECT 1',
    '',
  ])('%j does not', (text) => {
    expect(transactionControl(text)).toBeUndefined();
  });
});

// Each of pg's call forms fails as pg fails it, so that a refused statement never hangs a handler
// nor leaves a rejection nobody holds.
describe('guardTransaction', () => {
  const fakeClient = () => {
    const sent: unknown[] = [];
    return { sent, query: (...args: unknown[]) => (sent.push(args[0]), Promise.resolve({ rows: [] })) };
  };

  test('passes every other statement to the client’s own query, and is removed without a trace', async () => {
    const client = fakeClient();
    const own = client.query;
    const guard = guardTransaction(client);
    await client.query('SAVEPOINT s');
    await client.query({ text: 'INSERT INTO ledger VALUES ($1)', values: [1] });
    expect(client.sent).toEqual(['SAVEPOINT s', { text: 'INSERT INTO ledger VALUES ($1)', values: [1] }]);
    expect(guard.refused()).toBeUndefined();
    guard.remove();
    expect(client.query).toBe(own);
    expect(Object.getOwnPropertyDescriptor(client, 'query')?.value).toBe(own);
  });

  test('the promise form rejects; a callback given last, or as the config’s, is called; a submittable (pg-cursor) is returned and told through handleError', async () => {
    const client = fakeClient();
    const guard = guardTransaction(client);
    await expect(client.query('ROLLBACK')).rejects.toThrow(/refused ROLLBACK on the inbox's client/);
    const last = await new Promise<unknown>((resolve) => void client.query('COMMIT', [], resolve));
    const inConfig = await new Promise<unknown>((resolve) => void client.query({ text: 'END', callback: resolve }));
    expect([last, inConfig].map((error) => (error as Error).message)).toEqual([expect.stringContaining('refused COMMIT'), expect.stringContaining('refused END')]);
    const told: unknown[] = [];
    const cursor = { text: 'BEGIN', submit: () => undefined, handleError: (error: unknown) => void told.push(error) };
    expect(client.query(cursor)).toBe(cursor);
    await Promise.resolve();
    expect((told[0] as Error).message).toContain('refused BEGIN');
    expect(client.sent).toEqual([]);
    expect(guard.refused()).toBe('ROLLBACK');
    guard.remove();
  });
});
