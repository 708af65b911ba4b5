import { checkOptions, declareOptions, MAX_TIMEOUT_MS } from '../core/option-checks.js';
import type { CallbackQueue, DeadLetter } from './dead-letters.js';
import type { CallbackJob } from '../webhooks/job.js';
import { createMemoryInbox } from '../inboxes/memory.js';
import { createCallbackReceiver } from '../webhooks/receiver/receiver.js';
import type { CallbackApplyOptions, CallbackReceiver, CallbackReceiverOptions } from '../webhooks/receiver/receiver.js';
import type { MemoryInboxContext } from '../inboxes/memory.js';
import { MAX_CALLBACK_BODY_BYTES } from '../webhooks/body.js';
import { canonicalJson } from '../webhooks/seal.js';
import { signCallback } from '../webhooks/sign.js';

/*
 * The contract of a queue adapter (payorch's, or a merchant's own over SQS or RabbitMQ): what a
 * receiver with `enqueue` relies on once it has
 * answered 200. Every case runs real signed callbacks (signCallback) through a real receiver
 * (createCallbackReceiver with the adapter's `enqueue`), so that jobs are sealed as in production
 * and a job changed in the queue is refused by `receiver.apply`, not by a stand-in.
 */

/** What the cases give your adapter's way to start applying jobs: the receiver's `apply`. */
export type QueueContractReceiver = Pick<CallbackReceiver<unknown>, 'apply'>;

/**
 * One engine under test, set up afresh for each case: your adapter over queues of its own and an
 * empty dead-letter store, whose retries come fast.
 */
export interface QueueContractEngine {
  /**
   * Your adapter over this case's queues. Its retry policy gives a job a few attempts (3 to 5)
   * with little or no delay between them, so that a job whose handler always fails is a dead
   * letter within seconds.
   */
  readonly queue: CallbackQueue;
  /**
   * Starts applying jobs with `receiver`, as your adapter's `work(receiver)` does in production
   * (for a Worker: its `queue` handler calling `receiver.apply`). Resolve once the workers run.
   * A case may call it again, for workers on other keys beside the first (a rolling deploy):
   * `close` stops them all. Where one consumer is all there is (a Worker), the last call's
   * receiver may take over.
   * @example (receiver) => adapter.work(receiver, { pollingIntervalSeconds: 0.5 })
   */
  work(receiver: QueueContractReceiver): unknown;
  /**
   * Puts `job` on the queue the workers read, as it is, the way anyone with access to the queue
   * could: not through `enqueue`. The cases send a job again (as the engine redelivers one) and
   * jobs changed in the queue.
   * @example (job) => boss.send(queueName, job)
   */
  send(job: unknown): Promise<unknown>;
  /**
   * Makes the engine's own retention pass as if all of its retention periods had gone by: ages
   * what the engine keeps of this case's jobs past every retention it has, then runs the
   * maintenance that deletes by them (pg-boss: backdate the job rows, then `supervise`). Do
   * nothing for an engine with no retention of its own.
   */
  expire(): Promise<unknown>;
  /** Stops the workers and closes what `setup` opened; called once the case is over, passed or failed. */
  close(): Promise<unknown>;
}

/** What {@link queueContract} runs against. */
export interface QueueContractOptions {
  /** A fresh engine for each case: queues and a dead-letter store that no other case uses. */
  setup(): QueueContractEngine | Promise<QueueContractEngine>;
  /**
   * How long a case waits for the engine to do something (apply a job, make a dead letter), in
   * milliseconds, before it fails. Register each case with a test timeout above four times this.
   * @default 20000
   */
  readonly timeoutMs?: number | undefined;
  /**
   * How long a case waits, in milliseconds, after what it expected happened, for what must not
   * happen (a second application, a second replay): longer than your workers' polling interval.
   * @default 1500
   */
  readonly quietMs?: number | undefined;
}

/** One behaviour of the contract: register it with your runner, `test(c.name, c.run, 120_000)`. */
export interface QueueContractCase {
  readonly name: string;
  /** Resolves when the adapter keeps the behaviour, rejects with what it did instead. An arrow: pass it to the runner as it is. */
  readonly run: () => Promise<void>;
}

/** The keys and merchant id of the cases' receiver: a test merchant of the contract's own. */
const API_KEY = 'payorch_contract_api_key';
const SECRET_KEY = 'payorch_contract_secret_key';
/** The secret key after a rotation: SECRET_KEY is then the previous one. */
const NEW_SECRET_KEY = 'payorch_contract_secret_key_rotated';
const MERCHANT_ID = 'payorch-queue-contract';
/** An id no engine gives a dead letter, in the shape of a UUID for engines whose ids are UUIDs. */
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const FAILURE = 'the ledger is locked (queue contract)';

class ContractViolation extends Error {
  override name = 'QueueContractViolation';
}

function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ContractViolation(message);
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The tracking code a job is about, read without trusting its shape (a job may be one written in the queue). */
function codeOf(job: unknown): string {
  const payload = typeof job === 'object' && job !== null ? (job as Readonly<Record<string, unknown>>)['payload'] : undefined;
  const code = typeof payload === 'object' && payload !== null ? (payload as Readonly<Record<string, unknown>>)['tracking_code'] : undefined;
  return typeof code === 'string' ? code : '';
}

/** The fields of a deposit callback of `code`, as the cases sign it. */
const depositOf = (code: string) => ({ tracking_code: code, tx_id: `tx-${code}`, status: 'completed', amount: 250, username: 'ada', fullname: 'Ada Yılmaz', user_id: 'u-contract', site_id: 7 });

/**
 * A `fullname` that makes the signed deposit of `code` exactly the largest body a receiver
 * accepts, of names with a NUL each and letters of two bytes.
 */
function largestFullname(code: string): string {
  const base = signCallback({ ...depositOf(code), fullname: '' }, { apiKey: API_KEY, secretKey: SECRET_KEY }).body;
  // Each is 14 bytes of JSON: the NUL is written \u0000.
  const name = 'Yılmaz\u0000 ';
  const room = MAX_CALLBACK_BODY_BYTES - new TextEncoder().encode(base).length;
  return name.repeat(Math.floor(room / 14)) + 'x'.repeat(room % 14);
}

/** One application the handler made: what it read of the callback. */
interface LedgerEntry {
  readonly amount: unknown;
  readonly user: unknown;
  readonly fullname: unknown;
}

/** How the handler treats a tracking code: fail this many attempts first, or every one. */
type Failing = number | 'always';

/**
 * The cases of the queue-adapter contract (see `CallbackQueue`): a job applied once through the
 * service's and the engine's redeliveries; every callback that verifies (a NUL in a name, lone
 * surrogates, the largest body) queued, kept and replayed unchanged; a failing handler retried, then kept as a dead letter
 * (its kind, tracking code, status, merchant id, receipt, attempts and last error) past the engine's
 * retention, its attempts and errors kept across a replay after which it died again; a replay that applies once, even when two replays run at once; a purge by ids and by
 * time, never both purging and replaying one dead letter; a job changed in the queue that pays
 * nothing; a job retried past a worker on old keys (a rolling deploy of a rotation) or a clock
 * behind; and no API key in jobs or dead letters. Each case gets a fresh engine and
 * tracking codes of its own. It needs no test runner: each case throws on failure.
 *
 * @example
 * ```ts
 * import { test } from 'vitest'; // or node:test, jest, mocha
 * import { queueContract } from 'payorch/testing';
 * import type { QueueContractEngine } from 'payorch/testing';
 * interface TestQueues { sendRaw(job: unknown): Promise<void>; ageAndRunMaintenance(): Promise<void>; close(): Promise<void> }
 * declare function freshQueues(): Promise<TestQueues>;
 * declare function createMyQueue(options: TestQueues & { retries: number; retryDelaySeconds: number }): QueueContractEngine['queue'] & { work: QueueContractEngine['work'] };
 *
 * for (const c of queueContract({
 *   async setup() {
 *     const queues = await freshQueues(); // queue names of their own, an empty dead-letter table
 *     const adapter = createMyQueue({ ...queues, retries: 2, retryDelaySeconds: 0 });
 *     return {
 *       queue: adapter,
 *       work: (receiver) => adapter.work(receiver),
 *       send: (job) => queues.sendRaw(job),
 *       expire: () => queues.ageAndRunMaintenance(),
 *       close: () => queues.close(),
 *     };
 *   },
 * })) {
 *   test(c.name, c.run, 120_000);
 * }
 * ```
 */
const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_QUIET_MS = 1500;
export const QUEUE_CONTRACT_OPTIONS = declareOptions<QueueContractOptions>()([
  { name: 'setup', rule: { type: 'function' }, required: true },
  { name: 'timeoutMs', rule: { type: 'number', min: 1, max: MAX_TIMEOUT_MS, integer: true, unit: 'milliseconds' }, default: DEFAULT_TIMEOUT_MS },
  { name: 'quietMs', rule: { type: 'number', min: 0, max: MAX_TIMEOUT_MS, integer: true, unit: 'milliseconds' }, default: DEFAULT_QUIET_MS },
]);

export function queueContract(options: QueueContractOptions): readonly QueueContractCase[] {
  checkOptions('queueContract', options, QUEUE_CONTRACT_OPTIONS);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
  const nonce = Math.random().toString(36).slice(2, 10);
  let serial = 0;

  /** Everything one case observes of its engine. */
  interface Run {
    readonly engine: QueueContractEngine;
    /** The receiver the service delivers to: it verifies, seals and enqueues with the adapter's `enqueue`. */
    readonly receiver: CallbackReceiver<unknown>;
    /** Every job the receiver enqueued, in order. */
    readonly enqueued: CallbackJob[];
    /** How the handler treats each tracking code; absent, it succeeds. */
    readonly failing: Map<string, Failing>;
    /** How many times the handler ran, per tracking code. */
    readonly runs: Map<string, number>;
    /** What the handler moved: one entry per application, per tracking code. */
    readonly ledger: Map<string, LedgerEntry[]>;
    /** How many times the workers called `apply`, per tracking code. */
    readonly applied: Map<string, number>;
    /**
     * What the first worker (`engine.work` in `start`) applies with: the run's receiver, unless a
     * case replaces it (a worker on other keys, or whose clock is off, then deployed again).
     */
    worker: QueueContractReceiver;
    /** A receiver with the cases' handler and inbox (shared by every receiver of the run), on other settings. */
    receiverWith(settings: Partial<CallbackReceiverOptions<MemoryInboxContext>>): CallbackReceiver<MemoryInboxContext>;
    /** A new tracking code of a deposit, its record a minute old. */
    code(): string;
    /**
     * Delivers a deposit callback signed with `secretKey` (the run's by default) to `receiver` (the
     * run's by default); resolves with the job it enqueued.
     */
    deliver(code: string, fields?: Readonly<Record<string, unknown>>, to?: { readonly receiver: CallbackReceiver<MemoryInboxContext>; readonly secretKey: string }): Promise<CallbackJob>;
    /** Polls `check` until it holds, or fails after `timeoutMs` naming `what`. */
    until(check: () => boolean | Promise<boolean>, what: string): Promise<void>;
    /** Every dead letter, across pages. */
    deadLetters(): Promise<DeadLetter[]>;
    /** Waits until the dead letters hold one of `code`, and returns it. */
    deadLetterOf(code: string): Promise<DeadLetter>;
  }

  async function start(): Promise<Run> {
    const engine = await options.setup();
    const enqueued: CallbackJob[] = [];
    const failing = new Map<string, Failing>();
    const runs = new Map<string, number>();
    const ledger = new Map<string, LedgerEntry[]>();
    const applied = new Map<string, number>();
    const bump = (counts: Map<string, number>, code: string): number => {
      const count = (counts.get(code) ?? 0) + 1;
      counts.set(code, count);
      return count;
    };
    // Taken detached, as a merchant passes it: an adapter's enqueue must not need `this`.
    const { enqueue } = engine.queue;
    // One inbox for every receiver of the run: the workers of a rolling deploy share the merchant's.
    const inbox = createMemoryInbox();
    function receiverWith(settings: Partial<CallbackReceiverOptions<MemoryInboxContext>>): CallbackReceiver<MemoryInboxContext> {
      const made = createCallbackReceiver({
        apiKey: API_KEY,
        secretKey: SECRET_KEY,
        merchantId: MERCHANT_ID,
        logLevel: 'off',
        // The failures the cases cause are expected; the cases read them from the dead letters.
        onError: () => undefined,
        inbox,
        enqueue: async (job) => {
          await enqueue(job);
          enqueued.push(job);
        },
        ...settings,
      });
      made.on('deposit.completed', (callback) => {
        const code = callback.payload.tracking_code;
        const run = bump(runs, code);
        const fails = failing.get(code) ?? 0;
        if (fails === 'always' || run <= fails) throw new Error(`${FAILURE}, attempt ${run}`);
        ledger.set(code, [...(ledger.get(code) ?? []), { amount: callback.payload.amount, user: callback.payload.user_id, fullname: callback.payload.fullname }]);
      });
      return made;
    }
    const receiver = receiverWith({});
    const current: { worker: QueueContractReceiver } = { worker: receiver };
    await engine.work({
      apply: (job: CallbackJob, applyOptions?: CallbackApplyOptions) => {
        bump(applied, codeOf(job));
        return current.worker.apply(job, applyOptions);
      },
    });

    async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new ContractViolation(`waited ${timeoutMs} ms (timeoutMs) for ${what}`);
        await pause(50);
      }
    }
    async function deadLetters(): Promise<DeadLetter[]> {
      const all: DeadLetter[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 100; page += 1) {
        const found = await engine.queue.deadLetters.list(cursor === undefined ? { limit: 50 } : { limit: 50, cursor });
        all.push(...found.deadLetters);
        cursor = found.cursor;
        if (cursor === undefined) return all;
      }
      throw new ContractViolation('deadLetters.list gave 100 pages of 50 and a cursor still: a cursor that does not move on');
    }
    async function deadLetterOf(code: string): Promise<DeadLetter> {
      let found: DeadLetter | undefined;
      await until(async () => (found = (await deadLetters()).find((deadLetter) => deadLetter.trackingCode === code)) !== undefined, `a dead letter of ${code} in deadLetters.list`);
      return found as DeadLetter;
    }
    return {
      engine,
      receiver,
      enqueued,
      failing,
      runs,
      ledger,
      applied,
      get worker() {
        return current.worker;
      },
      set worker(worker) {
        current.worker = worker;
      },
      receiverWith,
      code() {
        serial += 1;
        return `MAN-q${nonce}${serial}-${Math.floor(Date.now() / 1000) - 60}`;
      },
      async deliver(code, fields = {}, to = { receiver, secretKey: SECRET_KEY }) {
        const before = enqueued.length;
        const { headers, body } = signCallback({ ...depositOf(code), ...fields }, { apiKey: API_KEY, secretKey: to.secretKey });
        const response = await to.receiver.handle(new Request('https://receiver.test/callbacks', { method: 'POST', headers, body }));
        expectThat(response.status === 200, `the receiver should answer 200 once enqueue resolved, got ${response.status} ${await response.text()}`);
        const job = enqueued[before];
        expectThat(job !== undefined && enqueued.length === before + 1, 'the receiver answered 200 without enqueuing one job');
        return job;
      },
      until,
      deadLetters,
      deadLetterOf,
    };
  }

  /**
   * Waits until the handler moved `expected` entries for each of `codes`, then `quietMs` once for
   * them all (one quiet period shows a second application of any of them, as one per code would),
   * and checks that it moved exactly `expected` for each.
   */
  async function expectLedger(run: Run, codes: string | readonly string[], expected: number, what: string): Promise<void> {
    const all = typeof codes === 'string' ? [codes] : codes;
    for (const code of all) await run.until(() => (run.ledger.get(code)?.length ?? 0) >= expected, `${what}: ${expected} application(s) of ${code}`);
    await pause(quietMs);
    for (const code of all) {
      const entries = run.ledger.get(code) ?? [];
      expectThat(entries.length === expected, `${what}: ${code} should be applied ${expected} time(s), was ${entries.length}`);
    }
  }

  function expectNoKey(value: unknown, what: string): void {
    const text = JSON.stringify(value);
    expectThat(!text.includes(SECRET_KEY) && !text.includes(API_KEY), `${what} shows a key`);
  }

  /**
   * A worker that applies with `before` until it has refused one job, then with `after`: a worker
   * whose settings are wrong for the job (old keys, a clock behind), deployed again once it showed
   * it. What it refused, in order.
   */
  function deployedAfterRefusal(run: Run, before: QueueContractReceiver, after: QueueContractReceiver): unknown[] {
    const refusals: unknown[] = [];
    run.worker = {
      apply: async (job, applyOptions) => {
        try {
          await before.apply(job, applyOptions);
        } catch (error) {
          refusals.push(error);
          run.worker = after;
          throw error;
        }
      },
    };
    return refusals;
  }

  /** The reason and whether it is retryable of a refusal by `apply`, as text for a message. */
  function refusalOf(error: unknown): { readonly reason: unknown; readonly retryable: unknown; readonly text: string } {
    const fields = typeof error === 'object' && error !== null ? (error as Readonly<Record<string, unknown>>) : {};
    return { reason: fields['reason'], retryable: fields['retryable'], text: error instanceof Error ? error.message : String(error) };
  }

  /** Makes `count` dead letters of new tracking codes whose handler always fails, oldest first. */
  async function deadLettersOf(run: Run, count: number, spacingMs = 0): Promise<DeadLetter[]> {
    const made: DeadLetter[] = [];
    for (let index = 0; index < count; index += 1) {
      if (index > 0) await pause(spacingMs);
      const code = run.code();
      run.failing.set(code, 'always');
      await run.deliver(code);
      made.push(await run.deadLetterOf(code));
    }
    return made;
  }

  const cases: [string, (run: Run) => Promise<void>][] = [
    [
      'applies a queued callback once, though the service delivers it twice and the engine delivers its job again',
      async (run) => {
        const code = run.code();
        const first = await run.deliver(code);
        await run.deliver(code);
        await expectLedger(run, code, 1, 'two deliveries of one callback');
        // The engine's own redelivery: the same job on the queue again, as after a worker that
        // applied it and died before acknowledging.
        await run.engine.send(first);
        await run.until(() => (run.applied.get(code) ?? 0) >= 3, `the job of ${code}, sent again, to reach apply`);
        await expectLedger(run, code, 1, 'the job sent again');
        expectThat(run.runs.get(code) === 1, `the handler ran ${run.runs.get(code) ?? 0} times for one callback`);
        expectThat(!(await run.deadLetters()).some((deadLetter) => deadLetter.trackingCode === code), 'a job that applied, then was a duplicate, was kept as a dead letter');
      },
    ],
    [
      'retries a job whose handler fails, and applies it once when an attempt succeeds',
      async (run) => {
        const code = run.code();
        run.failing.set(code, 1);
        await run.deliver(code);
        await expectLedger(run, code, 1, 'a handler that failed its first attempt');
        expectThat(run.runs.get(code) === 2, `the handler should run twice (one failure, one success), ran ${run.runs.get(code) ?? 0} times`);
        expectThat(!(await run.deadLetters()).some((deadLetter) => deadLetter.trackingCode === code), 'a job whose retry succeeded was kept as a dead letter');
      },
    ],
    [
      'queues, keeps and replays unchanged every callback that verifies: a name with a NUL, one with lone surrogates, the largest body the receiver accepts',
      async (run) => {
        const names = new Map<string, string>();
        for (const fullname of ['Ada\u0000Yılmaz', 'Ada \ud800Yıl\udfffmaz\udc00'] as const) names.set(run.code(), fullname);
        const largest = run.code();
        names.set(largest, largestFullname(largest));
        // Dead letters first, so that the job goes through every place the engine keeps one.
        const jobs = new Map<string, CallbackJob>();
        for (const [code, fullname] of names) {
          run.failing.set(code, 'always');
          jobs.set(code, await run.deliver(code, { fullname }));
        }
        const dead = new Map<string, DeadLetter>();
        for (const code of names.keys()) dead.set(code, await run.deadLetterOf(code));
        for (const [code, deadLetter] of dead) {
          // The handler ran: the seal and the signature checked on each attempt.
          expectThat((run.runs.get(code) ?? 0) >= 2, `the job of ${code} should reach the handler on each attempt, ran ${run.runs.get(code) ?? 0} time(s)`);
          const kept = await run.engine.queue.deadLetters.get(deadLetter.id);
          expectThat(kept !== undefined && canonicalJson(kept.job) === canonicalJson(jobs.get(code)), `deadLetters.get of ${code} should give the job as enqueue got it`);
          run.failing.delete(code);
        }
        // `remaining` counts what a replay was asked for: 0 of the one id named, with others still dead.
        const [first, ...rest] = [...dead.values()].map((deadLetter) => deadLetter.id);
        const one = await run.engine.queue.deadLetters.replay({ ids: [first ?? ''] });
        expectThat(one.replayed === 1 && one.remaining === 0, `the replay of one id, with ${rest.length} other dead letters, should replay 1 and leave 0 of it, gave ${JSON.stringify(one)}`);
        const replayed = await run.engine.queue.deadLetters.replay({ ids: rest });
        expectThat(replayed.replayed === rest.length && replayed.remaining === 0, `the replay should send the other ${rest.length} dead letters, gave ${JSON.stringify(replayed)}`);
        await expectLedger(run, [...names.keys()], 1, 'the replayed dead letter');
        for (const [code, fullname] of names) expectThat(run.ledger.get(code)?.[0]?.fullname === fullname, `the job of ${code} applied another name than the one signed`);
      },
    ],
    [
      'keeps a job whose attempts ran out as a dead letter past the engine’s retention, with its kind, tracking code, status, merchant id, receipt, attempts and last error, and its replay applies it once',
      async (run) => {
        const code = run.code();
        run.failing.set(code, 'always');
        const startedAt = Date.now();
        const job = await run.deliver(code);
        const deadLetter = await run.deadLetterOf(code);
        const runs = run.runs.get(code) ?? 0;
        expectThat(runs >= 2, `the handler should be retried before the job is a dead letter, ran ${runs} time(s)`);
        const shown = { kind: deadLetter.kind, trackingCode: deadLetter.trackingCode, status: deadLetter.status, merchantId: deadLetter.merchantId, receivedAt: deadLetter.receivedAt.getTime(), attempts: deadLetter.attempts };
        const expected = { kind: 'deposit', trackingCode: code, status: 'completed', merchantId: MERCHANT_ID, receivedAt: job.receivedAt, attempts: runs };
        expectThat(canonicalJson(shown) === canonicalJson(expected), `the dead letter shows ${JSON.stringify(shown)}, expected ${JSON.stringify(expected)}`);
        expectThat(deadLetter.lastError.includes(FAILURE), `the dead letter's lastError should be the handler's error, got ${JSON.stringify(deadLetter.lastError)}`);
        expectThat(typeof deadLetter.id === 'string' && deadLetter.id !== '', 'the dead letter has no id');
        const deadAt = deadLetter.deadAt.getTime();
        expectThat(deadAt >= startedAt - 60_000 && deadAt <= Date.now() + 60_000, `the dead letter's deadAt is ${deadLetter.deadAt.toISOString()}, not the time it died`);
        expectNoKey(await run.engine.queue.deadLetters.list(), 'deadLetters.list');

        const kept = await run.engine.queue.deadLetters.get(deadLetter.id);
        expectThat(kept !== undefined && canonicalJson(kept.job) === canonicalJson(job), 'deadLetters.get should give the job as enqueue got it');
        expectThat((await run.engine.queue.deadLetters.get(UNKNOWN_ID)) === undefined, 'deadLetters.get of an unknown id should be undefined');

        await run.engine.expire();
        const after = await run.deadLetterOf(code);
        expectThat(after.id === deadLetter.id && after.attempts === deadLetter.attempts, 'the dead letter changed through the engine’s retention');
        expectThat(run.ledger.get(code) === undefined, 'a dead letter was applied');

        run.failing.delete(code);
        const replayed = await run.engine.queue.deadLetters.replay({ ids: [deadLetter.id] });
        expectThat(replayed.replayed === 1 && replayed.remaining === 0, `replay of its id should replay 1 and leave 0, gave ${JSON.stringify(replayed)}`);
        await expectLedger(run, code, 1, 'the replayed dead letter');
        expectThat(run.runs.get(code) === runs + 1, `the replay should run the handler once more, ran it ${(run.runs.get(code) ?? 0) - runs} times`);
        expectThat((await run.engine.queue.deadLetters.get(deadLetter.id)) === undefined, 'a replayed dead letter is still there');
        expectThat(!(await run.deadLetters()).some((each) => each.trackingCode === code), 'a replayed dead letter is still listed');
      },
    ],
    [
      'keeps the attempts and errors of every life of a dead letter replayed that died again',
      async (run) => {
        const code = run.code();
        run.failing.set(code, 'always');
        await run.deliver(code);
        const first = await run.deadLetterOf(code);
        const firstRuns = run.runs.get(code) ?? 0;
        expectThat(first.history.length === 0 && first.attempts === firstRuns, `a dead letter never replayed should show no history and its ${firstRuns} attempts, showed ${first.attempts} and ${JSON.stringify(first.history)}`);
        const replayed = await run.engine.queue.deadLetters.replay({ ids: [first.id] });
        expectThat(replayed.replayed === 1, `replay of its id should replay 1, gave ${JSON.stringify(replayed)}`);
        let again: DeadLetter | undefined;
        await run.until(async () => (again = (await run.deadLetters()).find((each) => each.trackingCode === code && each.history.length > 0)) !== undefined, `the dead letter of ${code} again, after its replay`);
        const second = again as DeadLetter;
        const runs = run.runs.get(code) ?? 0;
        expectThat(runs > firstRuns, `the replay should run the handler again, ran it ${runs - firstRuns} times`);
        const [life] = second.history;
        expectThat(second.history.length === 1 && life !== undefined, `the dead letter should show its one earlier life, showed ${JSON.stringify(second.history)}`);
        expectThat(life.attempts === first.attempts && life.lastError === first.lastError && life.deadAt.getTime() === first.deadAt.getTime(), `its earlier life should be the first dead letter's attempts, error and death, was ${JSON.stringify(life)}`);
        expectThat(second.attempts === runs, `the dead letter should count the attempts of both lives (${runs}), counted ${second.attempts}`);
        expectThat(second.lastError.includes(FAILURE), `the dead letter's lastError should be its last attempt's, got ${JSON.stringify(second.lastError)}`);
        const kept = await run.engine.queue.deadLetters.get(second.id);
        expectThat(kept !== undefined && kept.attempts === runs && kept.history.length === 1, 'deadLetters.get should show the attempts and history list shows');
        expectThat(canonicalJson(kept.job) === canonicalJson(run.enqueued.at(-1)), 'a replayed job should stay as it was sealed');
      },
    ],
    [
      'replays each dead letter once, even when two replays run at once',
      async (run) => {
        const dead = await deadLettersOf(run, 3);
        const codes = dead.map((deadLetter) => deadLetter.trackingCode);
        const runsBefore = codes.map((code) => run.applied.get(code) ?? 0);
        for (const code of codes) run.failing.delete(code);
        const racing = await Promise.all([run.engine.queue.deadLetters.replay(), run.engine.queue.deadLetters.replay()]);
        let replayed = racing[0].replayed + racing[1].replayed;
        let remaining = Math.min(racing[0].remaining, racing[1].remaining);
        // Three are within any engine's batch, but a replay that met the other's claimed rows may
        // leave them to a later call.
        for (let call = 0; call < 5 && remaining > 0; call += 1) {
          const more = await run.engine.queue.deadLetters.replay();
          replayed += more.replayed;
          remaining = more.remaining;
        }
        expectThat(replayed === 3 && remaining === 0, `the replays should send the 3 dead letters once in all and leave none, sent ${replayed}, left ${remaining}`);
        await expectLedger(run, codes, 1, 'two replays at once');
        codes.forEach((code, index) => {
          const sent = (run.applied.get(code) ?? 0) - (runsBefore[index] ?? 0);
          expectThat(sent === 1, `the dead letter of ${code} reached apply ${sent} times after two replays at once, expected once`);
        });
        expectThat((await run.deadLetters()).length === 0, 'dead letters are left after every one was replayed');
        const again = await run.engine.queue.deadLetters.replay();
        expectThat(again.replayed === 0 && again.remaining === 0, `a replay with no dead letters should replay 0 and leave 0, gave ${JSON.stringify(again)}`);
      },
    ],
    [
      'purges dead letters by id and those dead before a time, and never replays a purged one',
      async (run) => {
        // Over a second apart, for engines that keep deadAt in seconds.
        const [first, second, third] = (await deadLettersOf(run, 3, 1100)) as [DeadLetter, DeadLetter, DeadLetter];
        expectThat(first.deadAt.getTime() < second.deadAt.getTime() && second.deadAt.getTime() < third.deadAt.getTime(), 'dead letters made over a second apart should have deadAt in that order');
        const purgedNone = await run.engine.queue.deadLetters.purge({ ids: [UNKNOWN_ID] });
        expectThat(purgedNone.purged === 0, `purging an unknown id should purge 0, purged ${purgedNone.purged}`);
        const byId = await run.engine.queue.deadLetters.purge({ ids: [first.id] });
        expectThat(byId.purged === 1, `purging one id should purge 1, purged ${byId.purged}`);
        expectThat((await run.engine.queue.deadLetters.get(first.id)) === undefined, 'a purged dead letter is still there');
        const byTime = await run.engine.queue.deadLetters.purge({ before: third.deadAt });
        expectThat(byTime.purged === 1, `purging those dead before the third should purge the second only, purged ${byTime.purged}`);
        const left = await run.deadLetters();
        expectThat(left.length === 1 && left[0]?.id === third.id, `the third dead letter alone should be left, found ${JSON.stringify(left.map((each) => each.trackingCode))}`);

        for (const deadLetter of [first, second, third]) run.failing.delete(deadLetter.trackingCode);
        const replayed = await run.engine.queue.deadLetters.replay();
        expectThat(replayed.replayed === 1 && replayed.remaining === 0, `a replay after the purges should send the one left, gave ${JSON.stringify(replayed)}`);
        await expectLedger(run, third.trackingCode, 1, 'the dead letter left after the purges, replayed');
        expectThat(run.ledger.get(first.trackingCode) === undefined && run.ledger.get(second.trackingCode) === undefined, 'a purged dead letter was applied');
      },
    ],
    [
      'applies nothing of a job changed in the queue (its amount, its user), keeps it as a dead letter, and applies the genuine job once',
      async (run) => {
        // A genuine job, made as the receiver makes one, that no worker got: another receiver of
        // the same keys, which hands it to the case instead of the queue.
        const genuine: CallbackJob[] = [];
        const keep = (job: CallbackJob): Promise<void> => {
          genuine.push(job);
          return Promise.resolve();
        };
        const maker = createCallbackReceiver({ apiKey: API_KEY, secretKey: SECRET_KEY, merchantId: MERCHANT_ID, logLevel: 'off', onError: () => undefined, enqueue: keep });
        const changes: Readonly<Record<string, unknown>>[] = [{ amount: 25_000 }, { user_id: 'u-thief' }];
        const codes: string[] = [];
        for (const change of changes) {
          const code = run.code();
          codes.push(code);
          const { headers, body } = signCallback({ tracking_code: code, tx_id: `tx-${code}`, status: 'completed', amount: 250, username: 'ada', fullname: 'Ada Yılmaz', user_id: 'u-contract', site_id: 7 }, { apiKey: API_KEY, secretKey: SECRET_KEY });
          const answer = await maker.handle(new Request('https://receiver.test/callbacks', { method: 'POST', headers, body }));
          expectThat(answer.status === 200 && genuine.length === codes.length, 'the job maker should enqueue the genuine callback');
          const job = genuine[genuine.length - 1] as CallbackJob;
          await run.engine.send({ ...job, payload: { ...job.payload, ...change } });
        }
        for (const code of codes) {
          const deadLetter = await run.deadLetterOf(code);
          expectThat(deadLetter.lastError.includes('seal'), `the dead letter of a changed job should say its seal does not match, says ${JSON.stringify(deadLetter.lastError)}`);
          // Retrying cannot make it verify: a dead letter at its first attempt.
          expectThat(deadLetter.attempts === 1, `a changed job should be a dead letter at its first attempt, was after ${deadLetter.attempts}`);
        }
        for (const code of codes) {
          expectThat(run.runs.get(code) === undefined && run.ledger.get(code) === undefined, `a job of ${code} changed in the queue ran the handler`);
          expectThat((run.applied.get(code) ?? 0) >= 1, `the changed job of ${code} never reached apply`);
        }
        // Nothing was recorded of the changed jobs: the genuine ones still apply, once, as signed.
        for (const job of genuine) await run.engine.send(job);
        await expectLedger(run, codes, 1, 'the genuine job after its changed copy');
        for (const code of codes) {
          const [entry] = run.ledger.get(code) ?? [];
          expectThat(entry?.amount === 250 && entry.user === 'u-contract', `the genuine job of ${code} applied ${JSON.stringify(entry)}, not its signed amount and user`);
        }
      },
    ],
    [
      'in a rolling deploy of a key rotation, retries a job sealed with the new key that a worker still on the old keys took first, and a worker on the new keys applies it once, never as a dead letter',
      async (run) => {
        const rotated = { secretKey: NEW_SECRET_KEY, previousSecretKey: { secretKey: SECRET_KEY, until: new Date(Date.now() + 3_600_000) } };
        // Receivers on the new keys seal the job; the first worker is still on the old ones.
        const receiverOnNewKeys = run.receiverWith(rotated);
        const refusals = deployedAfterRefusal(run, run.receiver, run.receiverWith(rotated));
        const code = run.code();
        await run.deliver(code, {}, { receiver: receiverOnNewKeys, secretKey: NEW_SECRET_KEY });
        await run.until(() => refusals.length >= 1, `the worker on the old keys to take the job of ${code} first`);
        const refused = refusalOf(refusals[0]);
        expectThat(refused.reason === 'seal_key_unknown' && refused.retryable === true, `a worker on the old keys should refuse a job sealed with the new key as seal_key_unknown, retryable; refused it with ${JSON.stringify(refused)}`);
        // A worker on the new keys, beside it.
        const workerOnNewKeys = run.receiverWith(rotated);
        await run.engine.work({ apply: (job: CallbackJob, applyOptions?: CallbackApplyOptions) => workerOnNewKeys.apply(job, applyOptions) });
        await expectLedger(run, code, 1, 'a job sealed with the new key, refused by a worker on the old keys');
        expectThat(run.runs.get(code) === 1, `the handler ran ${run.runs.get(code) ?? 0} times for one callback`);
        expectThat(!(await run.deadLetters()).some((deadLetter) => deadLetter.trackingCode === code), 'a job sealed with a key the first worker did not hold yet was kept as a dead letter');
      },
    ],
    [
      'retries a job received in a worker’s future (the receiver’s clock ahead of the worker’s) rather than keeping it as a dead letter at once',
      async (run) => {
        // The worker's clock ten minutes behind the receiver's, then set right (NTP).
        const behind = run.receiverWith({ now: () => Date.now() - 600_000 });
        const refusals = deployedAfterRefusal(run, behind, run.receiver);
        const code = run.code();
        await run.deliver(code);
        await run.until(() => refusals.length >= 1, `the worker whose clock is behind to take the job of ${code} first`);
        const refused = refusalOf(refusals[0]);
        expectThat(refused.reason === 'timestamp_out_of_tolerance' && refused.retryable === true, `a worker whose clock is behind should refuse a job received in its future as timestamp_out_of_tolerance, retryable; refused it with ${JSON.stringify(refused)}`);
        await expectLedger(run, code, 1, 'a job received in the worker’s future');
        expectThat(!(await run.deadLetters()).some((deadLetter) => deadLetter.trackingCode === code), 'a job received in a worker’s future was kept as a dead letter');
      },
    ],
    [
      'writes no API key into a job or a dead letter of a receiver given no merchantId',
      async (run) => {
        const receiverOfApiKey = run.receiverWith({ merchantId: undefined });
        run.worker = receiverOfApiKey;
        const code = run.code();
        run.failing.set(code, 'always');
        const job = await run.deliver(code, {}, { receiver: receiverOfApiKey, secretKey: SECRET_KEY });
        expectNoKey(job, 'the job enqueue got');
        const deadLetter = await run.deadLetterOf(code);
        expectThat(deadLetter.merchantId !== '' && deadLetter.merchantId !== API_KEY, `the dead letter's merchantId should be a digest of the API key, is ${JSON.stringify(deadLetter.merchantId)}`);
        expectNoKey(await run.deadLetters(), 'deadLetters.list');
        const kept = await run.engine.queue.deadLetters.get(deadLetter.id);
        expectThat(kept !== undefined, 'deadLetters.get gave nothing for a listed dead letter');
        expectNoKey(kept, 'deadLetters.get');
        run.failing.delete(code);
        await run.engine.queue.deadLetters.replay({ ids: [deadLetter.id] });
        await expectLedger(run, code, 1, 'the replayed job of a receiver given no merchantId');
      },
    ],
    [
      'replays or purges a dead letter that a replay and a purge take at once, never both: a replayed job is applied, none is lost while queued',
      async (run) => {
        const codes = Array.from({ length: 8 }, () => run.code());
        for (const code of codes) run.failing.set(code, 'always');
        for (const code of codes) await run.deliver(code);
        const dead = await Promise.all(codes.map((code) => run.deadLetterOf(code)));
        for (const code of codes) run.failing.delete(code);
        // All at once, each purge a few turns of the event loop after its replay (a check and a
        // removal in two steps lose a job replayed between them), while the workers are busy with
        // one replayed job and the others wait, queued.
        const turns = async (count: number): Promise<void> => {
          for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setTimeout(resolve, 0));
        };
        const outcomes = await Promise.all(
          dead.map(async (deadLetter, index) => {
            const [replayed, purged] = await Promise.all([run.engine.queue.deadLetters.replay({ ids: [deadLetter.id] }), turns(index).then(() => run.engine.queue.deadLetters.purge({ ids: [deadLetter.id] }))]);
            return { deadLetter, replayed: replayed.replayed, purged: purged.purged };
          }),
        );
        for (const { replayed, purged } of outcomes) expectThat(replayed + purged === 1, `a replay and a purge of one dead letter at once should do one of them, replayed ${replayed} and purged ${purged}`);
        await expectLedger(run, outcomes.filter(({ replayed }) => replayed === 1).map(({ deadLetter }) => deadLetter.trackingCode), 1, 'a dead letter replayed while a purge took it');
        for (const { deadLetter } of outcomes.filter(({ purged }) => purged === 1)) expectThat(run.ledger.get(deadLetter.trackingCode) === undefined, `the purged dead letter of ${deadLetter.trackingCode} was applied`);
        expectThat((await run.deadLetters()).length === 0, 'a dead letter replayed or purged is still listed');
      },
    ],
  ];

  return cases.map(([name, body]) => ({
    name,
    run: async () => {
      const run = await start();
      try {
        await body(run);
      } finally {
        await run.engine.close();
      }
    },
  }));
}
