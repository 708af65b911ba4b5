/*
 * The contract every callback inbox keeps, as a table of cases (payorch/testing exports it): payorch
 * runs it against each of its inboxes, and a merchant against an inbox of their own.
 */
import { checkOptions, declareOptions } from '../core/option-checks.js';
import { CallbackRetentionError, InboxError, RequestValidationError, isPayorchError } from '../errors/error.js';
import type { CallbackInbox, CallbackInboxContext, CallbackKey, CallbackProgress } from './inbox.js';

/**
 * One store of the inbox under test, empty when the case gets it.
 * @typeParam TContext what the inbox gives the handlers
 */
export interface InboxContractStore<TContext extends CallbackInboxContext = CallbackInboxContext> {
  /**
   * An instance of the inbox over this store. Called again, it gives another instance over the
   * same store, as another process or Worker would have one: the cases race them. An inbox whose
   * state lives in one object (the in-memory one) gives that object each time.
   */
  inbox(): CallbackInbox<TContext>;
  /**
   * Your prune: forgets the keys of records (the Unix seconds a tracking code ends with) older
   * than `olderThanSeconds` before now, and raises the horizon over them. The cases call it with
   * {@link INBOX_CONTRACT_PRUNE_SECONDS}.
   */
  prune(olderThanSeconds: number): Promise<unknown>;
}

/**
 * Stores whose table another version of the inbox made, for the cases of upgrades.
 * @typeParam TContext what the inbox gives the handlers
 */
export interface InboxContractVersions<TContext extends CallbackInboxContext = CallbackInboxContext> {
  /**
   * A store whose table is of the earliest version the inbox migrates, holding the keys `applied`
   * as that version kept them (each with its `recordTime`), and `migrate`, which brings it to the
   * current version as your deployment would: the cases call it from two instances at once. An
   * inbox that migrates on first use gives a `migrate` that does nothing.
   */
  earlier(applied: readonly CallbackKey[]): Promise<InboxContractStore<TContext> & {
    /** Brings the table to the current version, as your deployment would. */
    migrate(): Promise<unknown>;
  }>;
  /** A store whose table records a version later than the inbox knows, as a later release leaves it. */
  later(): Promise<InboxContractStore<TContext>>;
  /** A store whose table has one more NOT NULL column than its version, added by hand. */
  altered(): Promise<InboxContractStore<TContext>>;
}

/**
 * What {@link inboxContract} runs against.
 * @typeParam TContext what the inbox gives the handlers
 */
export interface InboxContractOptions<TContext extends CallbackInboxContext = CallbackInboxContext> {
  /**
   * A store of its own for each case (a new table, database, or object), so that one case's
   * prune does not reach another's keys.
   */
  store(): InboxContractStore<TContext> | Promise<InboxContractStore<TContext>>;
  /**
   * Run inside `apply`, with its context: makes the commit that follows fail while `apply`
   * resolves, as a handler does that catches the error of a failed statement (PostgreSQL: a
   * statement that fails on `context.client`, its error caught, so that COMMIT answers ROLLBACK;
   * D1: a statement pushed into `context.statements` that fails in the batch; a Durable Object: a
   * write that breaks a deferred foreign key). A case then holds the inbox to a 200 only for what
   * it committed: `process` rejects, nothing is recorded, and the redelivery applies once. `null`
   * for an inbox that commits nothing after `apply` resolves (the in-memory one), and only then.
   * @example async ({ client }) => { await client.query('SELECT 1 / 0').catch(() => undefined); }
   */
  readonly failCommit: ((context: TContext) => Promise<void>) | null;
  /**
   * For an inbox that hands the handlers its open transaction (PostgreSQL's `client`): ends that
   * transaction from inside `apply`, as a helper does that runs its own `BEGIN` and `COMMIT` or
   * `ROLLBACK` on the client it is given. The cases then hold the inbox to `'applied'` only when
   * the transaction that holds the key is the one that commits (an inbox that refuses a handler's
   * COMMIT, as PostgreSQL's does, is given ways past its refusal). After each way of `rollback`
   * (named, for the messages), `process` rejects, nothing is recorded, and the redelivery applies
   * once; after `commit`, which commits the key with it, `process` rejects and the redelivery is a
   * duplicate. Left out for an inbox whose handlers cannot end its transaction (D1's statements,
   * a Durable Object's storage, the in-memory one).
   * @example { rollback: { 'a ROLLBACK of its own': async ({ client }) => { await client.query('ROLLBACK'); } }, commit: async ({ client }) => { await client.query('COMMIT'); } }
   */
  readonly endTransaction?:
    | {
        /** Ways of ending the transaction undone, by name. */
        readonly rollback: Readonly<Record<string, (context: TContext) => Promise<void>>>;
        /** Ends the transaction committed, key included. */
        readonly commit: (context: TContext) => Promise<void>;
      }
    | undefined;
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
  /**
   * Tables of other versions: an earlier one is migrated keeping its keys, a later one and one
   * changed by hand are refused with an `InboxError`. Left out for an inbox that keeps no table
   * (the in-memory one).
   */
  readonly versions?: InboxContractVersions<TContext> | undefined;
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
const MERCHANT_ID = 'payorch-contract';

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

const DEFAULT_REDELIVERIES = 3;
export const INBOX_CONTRACT_OPTIONS = declareOptions<InboxContractOptions>()(
  [
    { name: 'store', rule: { type: 'function' }, required: true },
    { name: 'now', rule: { type: 'function' } },
    { name: 'redeliveries', rule: { type: 'number', min: 0, max: 100, integer: true }, default: DEFAULT_REDELIVERIES },
    { name: 'versions', rule: { type: 'object', methods: ['earlier', 'later', 'altered'], allowed: 'an object with earlier(), later() and altered()' } },
  ],
  { failCommit: 'a function or null, checked by name below', endTransaction: 'an object of functions, checked by name below' },
);

/**
 * The cases of the inbox contract (see `CallbackInbox`): once only, concurrent copies, the
 * statuses of one tracking code one at a time, a failed `apply` rolled back, a failed commit and
 * (with `endTransaction`) a transaction a handler ended never `'applied'`, the retention
 * horizon, and prune. Each case gets an empty store and runs on tracking codes of its own.
 *
 * @example
 * ```ts
 * import { test } from 'vitest'; // or node:test, jest, mocha
 * import type { CallbackInboxContext } from 'payorch';
 * import { inboxContract } from 'payorch/testing';
 * import type { InboxContractOptions } from 'payorch/testing';
 * declare const store: InboxContractOptions<CallbackInboxContext>['store']; // a fresh store of your inbox per case
 * for (const c of inboxContract({ store, failCommit: null })) test(c.name, c.run);
 * ```
 */
export function inboxContract<TContext extends CallbackInboxContext = CallbackInboxContext>(options: InboxContractOptions<TContext>): readonly InboxContractCase[] {
  checkOptions('inboxContract', options, INBOX_CONTRACT_OPTIONS);
  const now = options.now ?? Date.now;
  const redeliveries = options.redeliveries ?? DEFAULT_REDELIVERIES;
  const nonce = Math.random().toString(36).slice(2, 10);
  let serial = 0;
  /** A tracking code of its own, whose record is `ageSeconds` old. */
  function code(ageSeconds: number): string {
    serial += 1;
    return `CON-${nonce}${serial}-${Math.floor(now() / 1000) - ageSeconds}`;
  }
  const key = (trackingCode: string, status: string, merchantId = MERCHANT_ID): CallbackKey => ({ merchantId, trackingCode, status });

  /** Calls `process` once, running `work` as the handlers would. */
  async function deliver(inbox: CallbackInbox<TContext>, callbackKey: CallbackKey, work: (context: TContext, progress?: CallbackProgress) => Promise<void> = () => Promise.resolve()): Promise<Delivery> {
    const seen: CallbackInboxContext[] = [];
    try {
      const outcome = await inbox.process(callbackKey, async (context, progress) => {
        seen.push({ key: context.key, appliedStatuses: [...context.appliedStatuses] });
        await work(context, progress);
      });
      return { outcome, seen };
    } catch (error) {
      return { outcome: 'rejected', error, seen };
    }
  }

  /** Delivers until `process` resolves, as the service redelivers a callback answered 500. */
  async function deliverUntilSettled(inbox: CallbackInbox<TContext>, callbackKey: CallbackKey, work?: (context: TContext, progress?: CallbackProgress) => Promise<void>): Promise<Delivery> {
    let delivery = await deliver(inbox, callbackKey, work);
    for (let attempt = 0; attempt < redeliveries && delivery.outcome === 'rejected'; attempt += 1) delivery = await deliver(inbox, callbackKey, work);
    return delivery;
  }

  /*
   * Money moved by handlers, as the receiver runs them: one step after another, each skipped when
   * the inbox's progress says it completed in an earlier attempt. What a step moves is kept as
   * the inbox keeps it: at once when the inbox passes progress (it cannot roll back), else with
   * the attempt, only when `process` resolves 'applied' (its transaction committed).
   */
  type Step = readonly [name: string, run: (context: TContext, moved: string[]) => void];
  async function deliverSteps(inbox: CallbackInbox<TContext>, callbackKey: CallbackKey, steps: readonly Step[], ledger: string[]): Promise<Delivery> {
    const attempt: string[] = [];
    const delivery = await deliver(inbox, callbackKey, async (context, progress) => {
      for (const [name, run] of steps) {
        if (progress?.has(name) === true) continue;
        run(context, progress === undefined ? attempt : ledger);
        progress?.add(name);
        // A turn between handlers, as the receiver awaits each.
        await Promise.resolve();
      }
    });
    if (delivery.outcome === 'applied') ledger.push(...attempt);
    return delivery;
  }

  /**
   * The first end status, whose second handler throws once, then the other end, then the first
   * again until it applies: what `ledger` holds afterwards is the money moved.
   */
  async function endsWithAThrow(store: InboxContractStore<TContext>, [first, second]: readonly [CallbackKey, CallbackKey], money: (status: string, context: TContext, moved: string[]) => void): Promise<string[]> {
    const ledger: string[] = [];
    let fail = true;
    const steps: readonly Step[] = [
      [
        'money#0',
        (context, moved) => {
          money(context.key.status, context, moved);
        },
      ],
      [
        'audit#1',
        () => {
          if (fail) throw new Error('the second handler failed');
        },
      ],
    ];
    const thrown = await deliverSteps(store.inbox(), first, steps, ledger);
    expectThat(thrown.outcome === 'rejected', `${first.status} whose second handler threw should reject, got ${thrown.outcome}`);
    fail = false;
    let other = await deliverSteps(store.inbox(), second, steps, ledger);
    for (let attempt = 0; attempt < redeliveries && other.outcome === 'rejected'; attempt += 1) other = await deliverSteps(store.inbox(), second, steps, ledger);
    expectThat(other.outcome === 'applied', `${second.status} after it should apply, got ${other.outcome}${other.outcome === 'rejected' ? ` (${String(other.error)})` : ''}`);
    let again = await deliverSteps(store.inbox(), first, steps, ledger);
    for (let attempt = 0; attempt < redeliveries && again.outcome === 'rejected'; attempt += 1) again = await deliverSteps(store.inbox(), first, steps, ledger);
    expectThat(again.outcome === 'applied', `${first.status} delivered again should apply, got ${again.outcome}${again.outcome === 'rejected' ? ` (${String(again.error)})` : ''}`);
    expectDuplicate(await deliverSteps(store.inbox(), second, steps, ledger), `${second.status} once more`);
    return ledger;
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

  const { failCommit } = options;
  // Required, and asked for by name: left out (from JavaScript), the commit case would fail with
  // a message about the inbox rather than about its own options.
  if (failCommit !== null && typeof failCommit !== 'function') {
    throw new RequestValidationError('inboxContract', [
      { field: 'failCommit', rule: 'invalid_option', message: 'must be a function that makes the commit after apply fail, or null for an inbox that commits nothing after apply (the in-memory one)' },
    ]);
  }
  const { endTransaction } = options;
  // Checked as JavaScript may pass it: the cases would otherwise fail on a malformed option.
  const given = endTransaction as Partial<Record<'rollback' | 'commit', unknown>> | null | undefined;
  const ways = typeof given?.rollback === 'object' && given.rollback !== null ? Object.values(given.rollback) : [];
  if (given !== undefined && (typeof given?.commit !== 'function' || ways.length === 0 || !ways.every((way) => typeof way === 'function'))) {
    throw new RequestValidationError('inboxContract', [
      { field: 'endTransaction', rule: 'invalid_option', message: 'must be { rollback: { [way]: function, … }, commit: function }, with at least one way of rolling back, or left out for an inbox whose handlers cannot end its transaction' },
    ]);
  }
  const unpaid = (status: string): boolean => status === 'rejected' || status === 'failed' || status === 'canceled';
  const cases: [string, (store: InboxContractStore<TContext>) => Promise<void>][] = [
    [
      'applies a callback once: a later call for its key is a duplicate and runs nothing, on every instance',
      async (store) => {
        const [first, second] = [store.inbox(), store.inbox()];
        const done = key(code(60), 'completed');
        expectApplied(await deliver(first, done), done, [], 'the first call');
        expectDuplicate(await deliver(first, done), 'the same key again');
        expectDuplicate(await deliver(second, done), 'the same key on another instance');
        const otherMerchant = key(done.trackingCode, done.status, `${MERCHANT_ID}-other`);
        expectApplied(await deliver(second, otherMerchant), otherMerchant, [], 'the same tracking code and status for another merchant');
      },
    ],
    [
      'applies concurrent copies of one callback once',
      async (store) => {
        const instances = [store.inbox(), store.inbox()];
        const copy = key(code(60), 'completed');
        const deliveries = await Promise.all(
          [0, 1, 2, 3].map((index) =>
            deliverUntilSettled(instances[index % 2] as CallbackInbox<TContext>, copy, () => pause(20)),
          ),
        );
        const outcomes = deliveries.map((delivery) => delivery.outcome).sort();
        expectThat(show(outcomes) === show(['applied', 'duplicate', 'duplicate', 'duplicate']), `four copies at once should resolve one 'applied' and three 'duplicate', got ${show(outcomes)}`);
        expectDuplicate(await deliver(instances[0] as CallbackInbox<TContext>, copy), 'a copy after the race');
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
    ...(failCommit === null
      ? []
      : ([
          [
            'answers applied only for what it committed: a commit that fails after apply resolved rejects, records nothing, and the redelivery applies once',
            async (store) => {
              const inbox = store.inbox();
              const trackingCode = code(60);
              const [rejected, failed] = [key(trackingCode, 'rejected'), key(trackingCode, 'failed')];
              const spoiled = await deliver(inbox, rejected, failCommit);
              expectThat(spoiled.seen.length === 1, 'apply did not run');
              expectThat(spoiled.outcome === 'rejected', `a call whose commit failed should reject (the receiver answers 500), got ${spoiled.outcome}`);
              expectApplied(await deliver(store.inbox(), failed), failed, [], 'another status after the failed commit');
              expectApplied(await deliverUntilSettled(store.inbox(), rejected), rejected, ['failed'], 'the callback whose commit failed, delivered again');
              expectDuplicate(await deliver(inbox, rejected), 'the same key once applied');
            },
          ],
        ] satisfies [string, (store: InboxContractStore<TContext>) => Promise<void>][])),
    ...(endTransaction === undefined
      ? []
      : ([
          [
            'answers applied only when the transaction holding the key commits: a handler that ends it undone gets a rejection, with or without a throw after, nothing is recorded, and the redelivery applies once',
            async (store) => {
              for (const [way, end] of Object.entries(endTransaction.rollback)) {
                for (const thenThrows of [false, true]) {
                  const what = `${way}${thenThrows ? ', then a throw' : ''}`;
                  const trackingCode = code(60);
                  const [rejected, failed] = [key(trackingCode, 'rejected'), key(trackingCode, 'failed')];
                  const ended = await deliver(store.inbox(), rejected, async (context) => {
                    await end(context);
                    if (thenThrows) throw new Error('the handler failed after it');
                  });
                  expectThat(ended.seen.length === 1, `${what}: apply did not run`);
                  expectThat(ended.outcome === 'rejected', `${what}: process should reject (the receiver answers 500), got ${ended.outcome}`);
                  expectApplied(await deliver(store.inbox(), failed), failed, [], `${what}: another status after it`);
                  expectApplied(await deliverUntilSettled(store.inbox(), rejected), rejected, ['failed'], `${what}: the callback delivered again`);
                  expectDuplicate(await deliver(store.inbox(), rejected), `${what}: the same key once applied`);
                }
              }
            },
          ],
          [
            'a handler that commits the transaction holding the key itself gets a rejection, with or without a throw after: the key is recorded, and the redelivery is a duplicate',
            async (store) => {
              for (const thenThrows of [false, true]) {
                const what = `a handler's own commit${thenThrows ? ', then a throw' : ''}`;
                const trackingCode = code(60);
                const [completed, refunded] = [key(trackingCode, 'completed'), key(trackingCode, 'refunded')];
                const committed = await deliver(store.inbox(), completed, async (context) => {
                  await endTransaction.commit(context);
                  if (thenThrows) throw new Error('the handler failed after it');
                });
                expectThat(committed.seen.length === 1, `${what}: apply did not run`);
                expectThat(committed.outcome === 'rejected', `${what}: process should reject (the receiver answers 500), got ${committed.outcome}`);
                expectDuplicate(await deliver(store.inbox(), completed), `${what}: the redelivery, whose key it committed`);
                expectApplied(await deliver(store.inbox(), refunded), refunded, ['completed'], `${what}: another status after it`);
              }
            },
          ],
        ] satisfies [string, (store: InboxContractStore<TContext>) => Promise<void>][])),
    [
      'refunds a withdrawal once when the second handler of its first end status throws, whichever end comes first',
      async (store) => {
        for (const [first, second] of [['rejected', 'failed'], ['failed', 'rejected']] as const) {
          const trackingCode = code(60);
          // The guide's handler: refund unless another unpaid end was applied before.
          const ledger = await endsWithAThrow(store, [key(trackingCode, first), key(trackingCode, second)], (status, context, moved) => {
            if (unpaid(status) && !context.appliedStatuses.some(unpaid)) moved.push(`refund on ${status}`);
          });
          expectThat(ledger.length === 1, `${first} (its second handler threw), then ${second}: one refund expected, got ${show(ledger)}`);
        }
      },
    ],
    [
      'takes back a card payment\'s credit once when it is refunded and the second handler of its first status throws, whichever comes first',
      async (store) => {
        for (const [first, second] of [['success', 'refunded'], ['refunded', 'success']] as const) {
          const trackingCode = code(60);
          // Credit a success unless its refund was applied before; take it back on a refund once it was credited.
          const ledger = await endsWithAThrow(store, [key(trackingCode, first), key(trackingCode, second)], (status, context, moved) => {
            if (status === 'success' && !context.appliedStatuses.includes('refunded')) moved.push('credit');
            if (status === 'refunded' && context.appliedStatuses.includes('success')) moved.push('take back');
          });
          const [credits, takeBacks] = [ledger.filter((entry) => entry === 'credit').length, ledger.filter((entry) => entry === 'take back').length];
          expectThat(credits === takeBacks && credits <= 1, `${first} (its second handler threw), then ${second}: the credit should be taken back once, got ${show(ledger)}`);
        }
      },
    ],
    [
      'holds one key per merchant, tracking code and status whatever record time it is given, on every instance',
      async (store) => {
        serial += 1;
        // A transfer: its id carries no time, and its record time is read from an unsigned field.
        const trackingCode = `TRF-${nonce}${serial}`;
        const seconds = Math.floor(now() / 1000) - 3600;
        const failed: CallbackKey = { ...key(trackingCode, 'failed'), recordTime: seconds };
        expectApplied(await deliver(store.inbox(), failed), failed, [], 'the first end');
        // The same instant written with an offset (+03:00), and read without it, on other instances.
        for (const recordTime of [seconds - 3 * 3600, seconds + 3 * 3600]) {
          expectDuplicate(await deliver(store.inbox(), { ...failed, recordTime }), `the same key with the record time ${recordTime - seconds} s off`);
        }
        const completed: CallbackKey = { ...key(trackingCode, 'completed'), recordTime: seconds + 3 * 3600 };
        expectApplied(await deliver(store.inbox(), completed), completed, ['failed'], 'another status of it with another record time');
      },
    ],
    [
      'keeps a tracking code by the first record time given: after a prune its keys stay duplicates and take new statuses, whatever record time they come with',
      async (store) => {
        serial += 1;
        const trackingCode = `TRF-${nonce}${serial}`;
        const young = Math.floor(now() / 1000) - 10 * DAY;
        const old = Math.floor(now() / 1000) - 100 * DAY;
        const completed: CallbackKey = { ...key(trackingCode, 'completed'), recordTime: young };
        expectApplied(await deliver(store.inbox(), completed), completed, [], 'a record 10 days old');
        await store.prune(INBOX_CONTRACT_PRUNE_SECONDS);
        expectDuplicate(await deliver(store.inbox(), { ...completed, recordTime: old }), 'its key, given a record time behind the horizon');
        const failed: CallbackKey = { ...key(trackingCode, 'failed'), recordTime: old };
        expectApplied(await deliver(store.inbox(), failed), failed, ['completed'], 'another status of it, given a record time behind the horizon');
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

  const storeCases = cases.map(([name, run]) => ({
    name,
    run: async () => run(await options.store()),
  }));
  const { versions } = options;
  if (versions === undefined) return storeCases;

  async function expectTableRefused(store: InboxContractStore<TContext>, what: string): Promise<void> {
    const refused = key(code(60), 'completed');
    for (const attempt of ['the first call', 'the next call']) {
      const delivery = await deliver(store.inbox(), refused);
      expectThat(delivery.seen.length === 0, `${what}, ${attempt}: apply ran`);
      expectThat(delivery.outcome === 'rejected' && isPayorchError(delivery.error, InboxError), `${what}, ${attempt}: process should reject with an InboxError, got ${delivery.outcome === 'rejected' ? String(delivery.error) : delivery.outcome}`);
      expectThat(/version \d/.test(delivery.error.message), `${what}, ${attempt}: the InboxError should name the versions, got ${JSON.stringify(delivery.error.message)}`);
    }
  }

  const versionCases: [string, () => Promise<void>][] = [
    [
      'keeps every key of a table of an earlier version: migrated by two instances starting at once, each key is a duplicate on both, and its tracking code takes new statuses',
      async () => {
        const [first, second] = [code(60), code(3600)];
        const applied = [key(first, 'rejected'), key(second, 'completed')].map((each) => ({ ...each, recordTime: Number(each.trackingCode.split('-').at(-1)) }));
        const store = await versions.earlier(applied);
        await Promise.all([store.migrate(), store.migrate()]);
        const [one, two] = [store.inbox(), store.inbox()];
        const again = await Promise.all(applied.flatMap((each) => [deliver(one, each), deliver(two, each)]));
        again.forEach((delivery, index) => {
          expectDuplicate(delivery, `a key the earlier version applied, delivered again after the migration (${String(index)})`);
        });
        const failed = key(first, 'failed');
        expectApplied(await deliver(one, failed), failed, ['rejected'], 'another status of a tracking code the earlier version applied');
        const fresh = key(code(60), 'completed');
        expectApplied(await deliver(two, fresh), fresh, [], 'a new key after the migration');
      },
    ],
    [
      'refuses a table a later version migrated, with an InboxError naming the versions: nothing runs, nothing is recorded',
      async () => {
        await expectTableRefused(await versions.later(), 'a table of a later version');
      },
    ],
    [
      'refuses a table changed by hand (a column no version has), with an InboxError naming the versions: nothing runs, nothing is recorded',
      async () => {
        await expectTableRefused(await versions.altered(), 'a table changed by hand');
      },
    ],
  ];
  return [...storeCases, ...versionCases.map(([name, run]) => ({ name, run }))];
}
