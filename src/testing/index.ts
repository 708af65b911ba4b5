/**
 * payorch/testing: the contract every callback inbox keeps, as a table of cases you run against
 * your own inbox with the test runner you use. payorch runs the same table against each of its
 * inboxes (memory, PostgreSQL, D1, Durable Object). It needs no test runner: each case throws on
 * failure.
 *
 * @example
 * ```ts
 * import { test } from 'vitest'; // or node:test, jest, mocha
 * import { inboxContract } from 'payorch/testing';
 *
 * for (const contractCase of inboxContract({
 *   store: async () => {
 *     const table = await createEmptyTable();
 *     return { inbox: () => createMyInbox({ table }), prune: (olderThanSeconds) => pruneMyInbox({ table, olderThanSeconds }) };
 *   },
 * })) {
 *   test(contractCase.name, contractCase.run);
 * }
 * ```
 *
 * @module payorch/testing
 */
import { CallbackRetentionError, isPayorchError } from '../errors/error.js';
import type { CallbackInbox, CallbackInboxContext, CallbackKey } from '../webhooks/inbox.js';

/** One store of the inbox under test, empty when the case gets it. */
export interface InboxContractStore {
  /**
   * An instance of the inbox over this store. Called again, it gives another instance over the
   * same store, as another process or Worker would have one: the cases race them. An inbox whose
   * state lives in one object (the in-memory one) gives that object each time.
   */
  inbox(): CallbackInbox;
  /**
   * Your prune: forgets the keys of records (the Unix seconds a tracking code ends with) older
   * than `olderThanSeconds` before now, and raises the horizon over them. The cases call it with
   * {@link INBOX_CONTRACT_PRUNE_SECONDS}.
   */
  prune(olderThanSeconds: number): Promise<unknown>;
}

/** What {@link inboxContract} runs against. */
export interface InboxContractOptions {
  /**
   * A store of its own for each case (a new table, database, or object), so that one case's
   * prune does not reach another's keys.
   */
  store(): InboxContractStore | Promise<InboxContractStore>;
  /**
   * The clock the record times of the cases are counted from, in milliseconds since the epoch.
   * @default Date.now
   */
  readonly now?: (() => number) | undefined;
  /**
   * How many times a case delivers a callback whose `process` rejected, as the service would
   * redeliver it. An inbox that holds no lock while `apply` runs (D1) rejects the status that
   * lost a race, and applies it on the redelivery.
   * @default 3
   */
  readonly redeliveries?: number | undefined;
}

/** One behaviour of the contract: register it with your runner, `test(c.name, c.run)`. */
export interface InboxContractCase {
  readonly name: string;
  /** Resolves when the inbox keeps the behaviour, rejects with what it did instead. An arrow: pass it to the runner as it is. */
  readonly run: () => Promise<void>;
}

/** The retention the cases prune with: 90 days. */
export const INBOX_CONTRACT_PRUNE_SECONDS = 90 * 86_400;

const DAY = 86_400;
const ACCOUNT = 'payorch-contract';

/** What one `process` call did, as the cases observe it. */
interface Delivery {
  readonly outcome: 'applied' | 'duplicate' | 'rejected';
  readonly error?: unknown;
  /** The contexts `apply` got in this call: none when it did not run. */
  readonly seen: readonly CallbackInboxContext[];
}

class ContractViolation extends Error {
  override name = 'InboxContractViolation';
}

function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ContractViolation(message);
}

function show(value: unknown): string {
  return JSON.stringify(value);
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The cases of the inbox contract (see `CallbackInbox`): once only, concurrent copies, the
 * statuses of one tracking code one at a time, a failed `apply` rolled back, the retention
 * horizon, and prune. Each case gets an empty store and runs on tracking codes of its own.
 *
 * @example
 * ```ts
 * for (const c of inboxContract({ store })) test(c.name, c.run);
 * ```
 */
export function inboxContract(options: InboxContractOptions): readonly InboxContractCase[] {
  const now = options.now ?? Date.now;
  const redeliveries = options.redeliveries ?? 3;
  const nonce = Math.random().toString(36).slice(2, 10);
  let serial = 0;
  /** A tracking code of its own, whose record is `ageSeconds` old. */
  function code(ageSeconds: number): string {
    serial += 1;
    return `CON-${nonce}${serial}-${Math.floor(now() / 1000) - ageSeconds}`;
  }
  const key = (trackingCode: string, status: string, account = ACCOUNT): CallbackKey => ({ account, trackingCode, status });

  /** Calls `process` once, running `work` as the handlers would. */
  async function deliver(inbox: CallbackInbox, callbackKey: CallbackKey, work: (context: CallbackInboxContext) => Promise<void> = () => Promise.resolve()): Promise<Delivery> {
    const seen: CallbackInboxContext[] = [];
    try {
      const outcome = await inbox.process(callbackKey, async (context) => {
        seen.push({ key: context.key, appliedStatuses: [...context.appliedStatuses] });
        await work(context);
      });
      return { outcome, seen };
    } catch (error) {
      return { outcome: 'rejected', error, seen };
    }
  }

  /** Delivers until `process` resolves, as the service redelivers a callback answered 500. */
  async function deliverUntilSettled(inbox: CallbackInbox, callbackKey: CallbackKey, work?: (context: CallbackInboxContext) => Promise<void>): Promise<Delivery> {
    let delivery = await deliver(inbox, callbackKey, work);
    for (let attempt = 0; attempt < redeliveries && delivery.outcome === 'rejected'; attempt += 1) delivery = await deliver(inbox, callbackKey, work);
    return delivery;
  }

  function expectApplied(delivery: Delivery, callbackKey: CallbackKey, appliedStatuses: readonly string[], what: string): void {
    expectThat(delivery.outcome === 'applied', `${what}: process should resolve 'applied', got ${delivery.outcome}${delivery.outcome === 'rejected' ? ` (${String(delivery.error)})` : ''}`);
    const last = delivery.seen.at(-1);
    expectThat(last !== undefined, `${what}: apply did not run`);
    expectThat(show(last.key) === show(callbackKey), `${what}: apply got the key ${show(last.key)}, expected ${show(callbackKey)}`);
    expectThat(show(last.appliedStatuses) === show(appliedStatuses), `${what}: apply got appliedStatuses ${show(last.appliedStatuses)}, expected ${show(appliedStatuses)}`);
  }

  function expectDuplicate(delivery: Delivery, what: string): void {
    expectThat(delivery.outcome === 'duplicate', `${what}: process should resolve 'duplicate', got ${delivery.outcome}${delivery.outcome === 'rejected' ? ` (${String(delivery.error)})` : ''}`);
    expectThat(delivery.seen.length === 0, `${what}: apply ran for a key applied before`);
  }

  function expectRefused(delivery: Delivery, callbackKey: CallbackKey, what: string): void {
    expectThat(delivery.seen.length === 0, `${what}: apply ran for a record at or before the horizon`);
    expectThat(
      delivery.outcome === 'rejected' && isPayorchError(delivery.error, CallbackRetentionError),
      `${what}: process should reject with a CallbackRetentionError, got ${delivery.outcome === 'rejected' ? String(delivery.error) : delivery.outcome}`,
    );
    const { trackingCode, status, recordTime } = delivery.error;
    expectThat(trackingCode === callbackKey.trackingCode && status === callbackKey.status, `${what}: the CallbackRetentionError names ${trackingCode} ${status}`);
    expectThat(callbackKey.trackingCode.endsWith(`-${recordTime}`), `${what}: the CallbackRetentionError's recordTime is ${recordTime}`);
  }

  const cases: [string, (store: InboxContractStore) => Promise<void>][] = [
    [
      'applies a callback once: a later call for its key is a duplicate and runs nothing, on every instance',
      async (store) => {
        const [first, second] = [store.inbox(), store.inbox()];
        const done = key(code(60), 'completed');
        expectApplied(await deliver(first, done), done, [], 'the first call');
        expectDuplicate(await deliver(first, done), 'the same key again');
        expectDuplicate(await deliver(second, done), 'the same key on another instance');
        const otherAccount = key(done.trackingCode, done.status, `${ACCOUNT}-other`);
        expectApplied(await deliver(second, otherAccount), otherAccount, [], 'the same tracking code and status for another account');
      },
    ],
    [
      'applies concurrent copies of one callback once',
      async (store) => {
        const instances = [store.inbox(), store.inbox()];
        const copy = key(code(60), 'completed');
        const deliveries = await Promise.all(
          [0, 1, 2, 3].map((index) =>
            deliverUntilSettled(instances[index % 2] as CallbackInbox, copy, () => pause(20)),
          ),
        );
        const outcomes = deliveries.map((delivery) => delivery.outcome).sort();
        expectThat(show(outcomes) === show(['applied', 'duplicate', 'duplicate', 'duplicate']), `four copies at once should resolve one 'applied' and three 'duplicate', got ${show(outcomes)}`);
        expectDuplicate(await deliver(instances[0] as CallbackInbox, copy), 'a copy after the race');
      },
    ],
    [
      'applies the statuses of one tracking code one at a time: appliedStatuses lists every status applied before, and two racing never both see none',
      async (store) => {
        const trackingCode = code(60);
        const [rejected, failed, canceled] = [key(trackingCode, 'rejected'), key(trackingCode, 'failed'), key(trackingCode, 'canceled')];
        // Each handler waits, up to a bound, for the other to start: an inbox that lets both run
        // at once gets them both running, and one that serialises them only waits the bound.
        let started = 0;
        let bothStarted: () => void = () => undefined;
        const both = new Promise<void>((resolve) => (bothStarted = resolve));
        const work = async (): Promise<void> => {
          started += 1;
          if (started === 2) bothStarted();
          await Promise.race([both, pause(200)]);
        };
        const [one, two] = await Promise.all([deliverUntilSettled(store.inbox(), rejected, work), deliverUntilSettled(store.inbox(), failed, work)]);
        expectThat(one.outcome === 'applied' && two.outcome === 'applied', `both statuses should apply (after redeliveries), got ${one.outcome} and ${two.outcome}`);
        const seenOne = one.seen.at(-1)?.appliedStatuses ?? [];
        const seenTwo = two.seen.at(-1)?.appliedStatuses ?? [];
        expectThat(seenOne.length > 0 || seenTwo.length > 0, 'rejected and failed raced, and the handlers of both saw appliedStatuses [] (each would refund)');
        const [firstApplied, secondApplied] = seenOne.length === 0 ? ['rejected', 'failed'] : ['failed', 'rejected'];
        const [first, second] = seenOne.length === 0 ? [seenOne, seenTwo] : [seenTwo, seenOne];
        expectThat(first.length === 0 && show(second) === show([firstApplied]), `of two racing statuses one should see [] and the other [${show(firstApplied)}], got ${show(first)} and ${show(second)}`);
        expectApplied(await deliverUntilSettled(store.inbox(), canceled), canceled, [firstApplied, secondApplied], 'a third status afterwards (oldest first)');
        expectDuplicate(await deliver(store.inbox(), secondApplied === 'failed' ? failed : rejected), 'the status applied second, again');
      },
    ],
    [
      'records nothing when apply throws: the call rejects, no other status sees it, and a later call applies it',
      async (store) => {
        const inbox = store.inbox();
        const trackingCode = code(60);
        const [rejected, failed] = [key(trackingCode, 'rejected'), key(trackingCode, 'failed')];
        const failure = new Error('the handler failed');
        const thrown = await deliver(inbox, rejected, () => Promise.reject(failure));
        expectThat(thrown.outcome === 'rejected', `a call whose apply throws should reject, got ${thrown.outcome}`);
        expectThat(thrown.seen.length === 1, 'apply did not run');
        expectApplied(await deliver(store.inbox(), failed), failed, [], 'another status after the failure');
        expectApplied(await deliver(inbox, rejected), rejected, ['failed'], 'the failed callback, delivered again');
        expectDuplicate(await deliver(inbox, rejected), 'the same key once applied');
      },
    ],
    [
      'refuses with a CallbackRetentionError, running nothing, a callback whose key a prune forgot and one older still',
      async (store) => {
        const inbox = store.inbox();
        const old = key(code(100 * DAY), 'completed');
        // Before any prune there is no horizon: a record of any age applies.
        expectApplied(await deliver(inbox, old), old, [], 'a record 100 days old before any prune');
        await store.prune(INBOX_CONTRACT_PRUNE_SECONDS);
        expectRefused(await deliver(inbox, old), old, 'the pruned key, delivered again');
        expectRefused(await deliver(store.inbox(), old), old, 'the pruned key on another instance');
        const older = key(code(120 * DAY), 'completed');
        expectRefused(await deliver(inbox, older), older, 'a key never seen of a record 120 days old');
        expectRefused(await deliver(inbox, older), older, 'that key again (a refusal records nothing)');
      },
    ],
    [
      'prune keeps the keys of younger records: they stay duplicates, and their tracking codes take new statuses',
      async (store) => {
        const inbox = store.inbox();
        const kept = key(code(10 * DAY), 'rejected');
        const old = key(code(100 * DAY), 'completed');
        expectApplied(await deliver(inbox, kept), kept, [], 'a record 10 days old');
        expectApplied(await deliver(inbox, old), old, [], 'a record 100 days old');
        await store.prune(INBOX_CONTRACT_PRUNE_SECONDS);
        await store.prune(INBOX_CONTRACT_PRUNE_SECONDS);
        expectDuplicate(await deliver(inbox, kept), 'the key of 10 days, after two prunes');
        const failed = key(kept.trackingCode, 'failed');
        expectApplied(await deliver(store.inbox(), failed), failed, ['rejected'], 'another status of the kept tracking code');
        const fresh = key(code(60), 'completed');
        expectApplied(await deliver(inbox, fresh), fresh, [], 'a new record after the prune');
      },
    ],
  ];

  return cases.map(([name, run]) => ({
    name,
    run: async () => run(await options.store()),
  }));
}

export type { CallbackInbox, CallbackInboxContext, CallbackKey } from '../webhooks/inbox.js';
