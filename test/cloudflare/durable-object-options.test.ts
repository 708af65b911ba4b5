import { expect, test } from 'vitest';
import { RequestValidationError } from '../../src/index.js';
import { createDurableObjectInbox, pruneDurableObjectInbox } from '../../src/inboxes/durable-object/index.js';
import type { DurableObjectStorageLike } from '../../src/inboxes/durable-object/index.js';

// A key-value-backed object's storage: transactions, but no SQL.
const keyValueOnly = { transaction: <T>(closure: () => Promise<T>): Promise<T> => closure() } as unknown as DurableObjectStorageLike;
// A SQLite-backed one whose SQL must never run: every refusal comes first.
const untouched: DurableObjectStorageLike = {
  sql: {
    exec: () => {
      throw new Error('the storage was used before the options were checked');
    },
  },
  transaction: () => Promise.reject(new Error('the storage was used before the options were checked')),
};

test.each([
  ['createDurableObjectInbox', 'no options', () => createDurableObjectInbox(undefined as unknown as { storage: DurableObjectStorageLike }), '(options)', 'must be an object with storage'],
  ['createDurableObjectInbox', 'no storage', () => createDurableObjectInbox({} as { storage: DurableObjectStorageLike }), 'storage', "SQLite-backed Durable Object's storage"],
  ['createDurableObjectInbox', 'a storage without SQL', () => createDurableObjectInbox({ storage: keyValueOnly }), 'storage.sql', 'new_sqlite_classes'],
  ['pruneDurableObjectInbox', 'a storage without SQL', () => pruneDurableObjectInbox({ storage: keyValueOnly }), 'storage.sql', 'new_sqlite_classes'],
  ['createDurableObjectInbox', 'a table name that is no identifier', () => createDurableObjectInbox({ storage: untouched, table: 'inbox; DROP TABLE x' }), 'table', 'letters, digits and _'],
  ['pruneDurableObjectInbox', 'a retention under a day', () => pruneDurableObjectInbox({ storage: untouched, olderThanSeconds: 3600 }), 'olderThanSeconds', '86400'],
] as const)('%s refuses %s before touching the storage, naming %s', (where, _case, call, field, allowed) => {
  let thrown: unknown;
  try {
    void call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RequestValidationError);
  const error = thrown as RequestValidationError;
  expect(error.message).toContain(where);
  expect(error.issues[0]).toMatchObject({ field, rule: 'invalid_option', message: expect.stringContaining(allowed) as string });
});
