import { describe, expect, test } from 'vitest';
import { transactionControl } from '../../src/inboxes/postgres/transaction-control.js';

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
    'LOCK TABLE ledger IN SHARE ROW EXCLUSIVE MODE',
    'CREATE FUNCTION fee(amount int) RETURNS int LANGUAGE SQL BEGIN ATOMIC SELECT CASE WHEN amount > 100 THEN 1 ELSE 0 END; SELECT 2; END',
    'CREATE PROCEDURE settle() LANGUAGE SQL BEGIN ATOMIC INSERT INTO ledger VALUES (1); END; SELECT 1',
    '',
  ])('%j does not', (text) => {
    expect(transactionControl(text)).toBeUndefined();
  });
});
