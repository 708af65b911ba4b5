// Every public function that takes an options object refuses a name it does not have (misspelt or
// removed), naming it and its options, before it does anything: a misspelt option must not leave
// a default in force unseen. Here, the functions whose refusal no other test shows; the clients,
// calls, verifyCallback, signCallback, the receiver, the inboxes and createSandbox have their own.
import { describe, expect, test } from 'vitest';
import { DealerClient, applyTransferStatuses, createCallbackReceiver, createMemoryInbox, resealCallbackJob } from '../../src/index.js';
import type { CallbackJob } from '../../src/index.js';
import { checkReplayOptions } from '../../src/queues/dead-letters.js';
import { prunePostgresInbox } from '../../src/inboxes/postgres/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';
import { refusalOf } from '../helpers/refusal.js';
import { DEALER, PROVIDER } from '../helpers/wire.js';

// Nothing may be reached: each is refused before it is used.
const untouched = (): never => {
  throw new Error('reached');
};
const dealer = new DealerClient({ ...DEALER, baseUrl: 'https://pay.example.com', fetch: untouched });

describe.each([
  ['dealer.transfers.waitFor', 'intervalMs', () => dealer.transfers.waitFor('TRF-1', { intervalMs: 50 } as object)],
  ['applyTransferStatuses', 'concurency', () => applyTransferStatuses({ dealer, inbox: createMemoryInbox(), merchantId: 'shop', transferIds: ['TRF-1'], onStatus: untouched, concurency: 2 } as never)],
  ['prunePostgresInbox', 'olderThan', () => prunePostgresInbox({ pool: { connect: untouched }, olderThan: 3600 } as never)],
  ['sandbox.rotateKeys', 'window', () => createSandbox().rotateKeys('provider', { windowSeconds: 60, window: 60 } as never)],
  // A misspelt provider would leave a reconcile job without its status reader.
  ['receiver.apply', 'provder', () => createCallbackReceiver({ ...PROVIDER, onError: untouched }).apply({} as CallbackJob, { provder: dealer } as never)],
  ['resealCallbackJob', 'oldSecretkey', () => resealCallbackJob({} as CallbackJob, { secretKey: 'new', oldSecretkey: 'old' } as never)],
  // Every queue's replay checks its options here, before reading a dead letter.
  ['deadLetters.replay reseal', 'extra', () => checkReplayOptions({ reseal: { oldSecretKey: 'old', secretKey: 'new', extra: 1 } } as never, 100)],
] as const)('%s', (where, name, run) => {
  test(`refuses ${name}, naming it and its options, before anything is done`, async () => {
    const refusal = await refusalOf(run);
    expect(refusal.issues).toEqual([{ field: name, rule: 'invalid_option', message: expect.stringMatching(new RegExp(`^is not an option of ${where.replace('.', '\\.')} \\(misspelt, or removed\\?\\); its options are `)) as string }]);
  });
});
