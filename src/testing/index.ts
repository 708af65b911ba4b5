/**
 * payorch/testing: the contracts every callback inbox and every queue adapter keep, as tables of
 * cases you run against your own with the test runner you use. payorch runs the inbox table
 * against each of its inboxes and the queue table ({@link queueContract}) against each of its queue
 * adapters. Neither needs a test runner: each case throws on failure.
 *
 * @example
 * ```ts
 * import { test } from 'vitest'; // or node:test, jest, mocha
 * import { inboxContract } from 'payorch/testing';
 *
 * for (const contractCase of inboxContract<MyInboxContext>({
 *   store: async () => {
 *     const table = await createEmptyTable();
 *     return { inbox: () => createMyInbox({ table }), prune: (olderThanSeconds) => pruneMyInbox({ table, olderThanSeconds }) };
 *   },
 *   // A handler that catches the error of a failed statement: the commit that follows must fail.
 *   failCommit: async ({ client }) => {
 *     await client.query('SELECT 1 / 0').catch(() => undefined);
 *   },
 * })) {
 *   test(contractCase.name, contractCase.run);
 * }
 * ```
 *
 * @module payorch/testing
 */
export { inboxContract, INBOX_CONTRACT_PRUNE_SECONDS } from '../inboxes/contract.js';
export type { InboxContractCase, InboxContractOptions, InboxContractStore, InboxContractVersions } from '../inboxes/contract.js';
export type { CallbackInbox, CallbackInboxContext, CallbackKey } from '../inboxes/inbox.js';

export { queueContract } from '../queues/contract.js';
export type { QueueContractCase, QueueContractEngine, QueueContractOptions, QueueContractReceiver } from '../queues/contract.js';
export type { CallbackQueue, DeadLetter, DeadLetterPage, DeadLetters, ListDeadLettersOptions, PurgeDeadLettersOptions, ReplayDeadLettersOptions, ReplayedDeadLetters } from '../queues/dead-letters.js';
