import { isCallbackStatus } from '../../webhooks/kinds.js';
import { signCallback } from '../../webhooks/sign.js';
import { callbackPayload, signerOf } from './callback-payloads.js';
import { RecordClock, formatDateTime } from './clock.js';
import { Deliverer } from './delivery.js';
import type { DeliverOptions, DeliveryResult } from './delivery.js';
import { buildFixtures, toCents } from './fixtures.js';
import type { EibanAccount, Fixtures } from './fixtures.js';
import { generateHistory } from './history.js';
import { rotateAccountKeys } from './keys.js';
import type { RotateKeysOptions, RotatedKeys } from './keys.js';
import { SeededRandom } from './random.js';
import type { Api } from '../../core/api.js';
import type { Transaction } from './history.js';
import { KINDS } from './record-kinds.js';
import type { KindRule, SandboxRecordKind } from './record-kinds.js';
import type { CallbackUrls, SandboxOptions } from './options.js';
import { checkList, checkOptions, checkValue, declareOptions } from '../../core/option-checks.js';
import type { ListRule } from '../../core/option-checks.js';
import { CLOCK_RANGE, MAX_AMOUNT } from './limits.js';
import { SANDBOX_DEFAULTS, SANDBOX_OPTIONS } from './options.js';
import { RecordStore } from './records.js';
import type { StoredRecord } from './records.js';
import { SandboxError } from './sandbox-error.js';
import type { OptionDeclaration } from '../../core/option-checks.js';

/** What `clock.set()` takes: a time the record clock can show. */
const CLOCK_TIME: OptionDeclaration = { name: 'time', rule: { type: 'time', ...CLOCK_RANGE }, required: true };

/** A record as `sandbox.records()` shows it: a snapshot, not the live record. */
export interface SandboxRecord {
  /** The tracking code, or a transfer's transfer id. */
  readonly id: string;
  readonly kind: SandboxRecordKind;
  readonly status: string;
  readonly amount: number;
  /** The site whose credential key created it (provider records). */
  readonly siteId: number | undefined;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly expiresAt: Date | undefined;
  readonly completedAt: Date | undefined;
  /** The request parameters it was created from, as validated. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** Options of `settle()`. */
export interface SettleOptions {
  /** The deposit's final amount, when the customer changed it on the payment page (spec 4.5). */
  readonly amount?: number | undefined;
  /**
   * Sign each retry of the callback afresh, or send the first signature again.
   * @default the sandbox's `callbackRetry.resign` (true)
   */
  readonly resign?: boolean | undefined;
  /**
   * Your endpoint stays down until the service stops retrying: every attempt of this callback
   * fails at once without being sent, as many as `callbackRetry.attempts`. The delivery stays in
   * the log, so `redeliver()` sends it later; `receiver.reconcile` recovers it from the status.
   * @default false
   */
  readonly failDeliveries?: boolean | undefined;
  /**
   * Further end statuses of the same record whose callbacks go out at the same moment as
   * `status`'s, as a service that reports one withdrawal both rejected and failed would: to test
   * that a handler refunds once. Each must be a move section 3 allows from the record's status;
   * the record ends in `status`.
   * @example ['failed']
   */
  readonly also?: readonly string[] | undefined;
}

/** `also`: at most the other end statuses a record has (section 3), each a status's name. */
const ALSO_RULE: ListRule = {
  min: 0,
  max: 5,
  items: 'end statuses',
  item: 'status',
  problem: (value) => (typeof value === 'string' && value !== '' && value.length <= 40 ? undefined : 'must be a status name'),
};

export const SETTLE_OPTIONS = declareOptions<SettleOptions>()(
  [
    { name: 'resign', rule: { type: 'boolean' } },
    { name: 'failDeliveries', rule: { type: 'boolean' }, default: false },
  ],
  { amount: "checked by settle against the deposit's limits", also: 'statuses, checked by settle against the moves section 3 allows' },
);

/** Options of `sandbox.redeliver()` and of the redeliver control. */
export interface RedeliverOptions {
  /**
   * Sign the callback afresh (a new timestamp and hash), or send the signature it was first sent
   * with, byte for byte.
   * @default the sandbox's `callbackRetry.resign` (true)
   */
  readonly resign?: boolean | undefined;
}

export const REDELIVER_OPTIONS = declareOptions<RedeliverOptions>()([{ name: 'resign', rule: { type: 'boolean' } }]);

/** What `settle()` did: the record after the move, and its callback delivery when one was due. */
export interface SettleResult {
  readonly record: SandboxRecord;
  /** Undefined when the move sends no callback or no URL is configured for it. */
  readonly callback: DeliveryResult | undefined;
  /** The deliveries of `also`'s statuses, in their order; undefined where no URL is configured. */
  readonly also?: readonly (DeliveryResult | undefined)[];
}

/**
 * The imitated service's state and rules: fixtures, records, balances, the record clock, and
 * the moves of section 3 with their callbacks. Adapters (fetch, HTTP, msw) and controls call it.
 */
export class Service {
  readonly seed: string;
  readonly fixtures: Fixtures;
  readonly clock: RecordClock;
  readonly records: RecordStore;
  readonly deliverer: Deliverer;
  /** The origin of `publicUrl`, when one is set: payment URLs start with it. */
  readonly publicOrigin: string | undefined;
  /**
   * A random per-sandbox secret the payment page puts in its forms, so that only a page the
   * sandbox served can post them (docs/decisions.md). Random, never seeded: a seed is guessable.
   */
  readonly formToken: string;
  callbackUrls: CallbackUrls;
  readonly #history = new Map<string, Transaction[]>();
  readonly #historyEnd: number;
  readonly #historyDays: number;
  readonly #historyPerDay: number;
  readonly #transferCompletionMs: number | undefined;
  readonly #maxRecords: number;
  /** The seed's stream of rotated keys, apart from the others: a rotation shifts no id. */
  readonly #rotations: SeededRandom;

  constructor(options: SandboxOptions) {
    checkOptions('createSandbox', options, SANDBOX_OPTIONS);
    this.seed = String(options.seed ?? SANDBOX_DEFAULTS.seed);
    this.clock = new RecordClock(options.startTime);
    this.#historyEnd = this.clock.now();
    this.fixtures = buildFixtures(options, this.#historyEnd);
    this.records = new RecordStore(this.seed, this.clock, (options.lifetimeSeconds ?? SANDBOX_DEFAULTS.lifetimeSeconds) * 1000, options.maxRecords);
    this.deliverer = new Deliverer(options.callbackRetry, options.maxDeliveries);
    this.publicOrigin = options.publicUrl === undefined ? undefined : new URL(options.publicUrl).origin;
    this.formToken = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(24)), (byte) => byte.toString(16).padStart(2, '0')).join('');
    this.callbackUrls = { ...options.callbackUrls };
    this.#historyDays = options.history?.days ?? SANDBOX_DEFAULTS.history.days;
    this.#historyPerDay = options.history?.perDay ?? SANDBOX_DEFAULTS.history.perDay;
    this.#maxRecords = options.maxRecords ?? SANDBOX_DEFAULTS.maxRecords;
    this.#transferCompletionMs = options.transferCompletionSeconds === undefined ? undefined : options.transferCompletionSeconds * 1000;
    this.#rotations = new SeededRandom(`${this.seed}:rotations`);
  }

  /** Gives an account new keys; the ones before stay valid for requests for the window, in real time. */
  rotateKeys(account: Api, options: RotateKeysOptions): RotatedKeys {
    return rotateAccountKeys(account, this.fixtures[account], options, this.#rotations, Date.now());
  }

  /** The record clock as `YYYY-MM-DD HH:MM:SS`, for the `timestamp` of provider answers. */
  timestamp(): string {
    return formatDateTime(this.clock.now());
  }

  eiban(walletId: string): EibanAccount | undefined {
    return this.fixtures.dealer.eibans.find((eiban) => eiban.walletId === walletId);
  }

  /** A wallet's transactions, oldest first; the generated history is made on first use. */
  transactions(walletId: string): readonly Transaction[] {
    let list = this.#history.get(walletId);
    if (list === undefined) {
      list = generateHistory(this.seed, walletId, this.#historyEnd, this.#historyDays, this.#historyPerDay);
      this.#history.set(walletId, list);
    }
    return list;
  }

  addTransaction(walletId: string, transaction: Transaction): void {
    const list = [...this.transactions(walletId), transaction].sort((a, b) => a.at - b.at);
    // Bounded like the records: the generated history plus at most maxRecords made since.
    const cap = this.#historyDays * this.#historyPerDay + this.#maxRecords;
    this.#history.set(walletId, list.length > cap ? list.slice(list.length - cap) : list);
  }

  /**
   * Moves a record to an end status section 3 allows, applies what the move implies, and
   * delivers the callback the status sends. The move happens before the first await, so no
   * request can see the record half-moved.
   */
  async settle(id: string, status: string, options: SettleOptions = {}): Promise<SettleResult> {
    // One check for both ways in (sandbox.settle() and POST /__sandbox/settle): no field of its own.
    checkOptions('sandbox.settle', options, SETTLE_OPTIONS);
    const also = options.also === undefined ? [] : checkList('sandbox.settle', 'also', options.also, ALSO_RULE);
    const record = this.records.get(id);
    if (record === undefined) throw new SandboxError('unknown_record', `No record has the id ${id}`);
    const rule: KindRule = KINDS[record.kind];
    const allowed = rule.moves[record.status] ?? [];
    if (!allowed.includes(status)) {
      const choices = allowed.length > 0 ? `only to ${allowed.join(', ')}` : 'to no other status';
      throw new SandboxError('refused_move', `${id} (${record.kind}) is ${record.status}: section 3 lets it move ${choices}, not to ${status}`);
    }
    if (options.amount !== undefined) {
      if (rule.callback !== 'deposit') throw new SandboxError('invalid_amount', `Only a deposit's amount may change when it is settled; ${id} is a ${record.kind}`);
      if (typeof options.amount !== 'number' || !Number.isFinite(options.amount) || options.amount <= 0 || options.amount > MAX_AMOUNT) {
        throw new SandboxError('invalid_amount', `The amount must be a positive number of at most ${MAX_AMOUNT}, not ${String(options.amount)}`);
      }
    }
    for (const other of also) {
      if (other === status || !allowed.includes(other)) throw new SandboxError('refused_move', `also: ${other} is not another end status ${id} (${record.kind}, ${record.status}) may move to: ${allowed.filter((each) => each !== status).join(', ') || 'none'}`);
    }
    // Every callback is under way before any is awaited: they reach the receiver together.
    const others = also.map((other) => this.#callbackOf({ ...record, status: other }, false, { resign: options.resign, failDeliveries: options.failDeliveries }));
    const settled = await this.#move(record, status, options.amount, false, { resign: options.resign, failDeliveries: options.failDeliveries });
    return also.length === 0 ? settled : { ...settled, also: await Promise.all(others.map((each) => each ?? Promise.resolve(undefined))) };
  }

  /**
   * Delivers a logged callback again, to its kind's callback URL now (or where it went, when
   * none is set), signed afresh or with its original signature.
   */
  async redeliver(deliveryId: string, options: RedeliverOptions = {}): Promise<DeliveryResult> {
    checkOptions('sandbox.redeliver', options, REDELIVER_OPTIONS);
    const kind = this.deliverer.kindOf(deliveryId);
    const delivery = kind === undefined ? undefined : this.deliverer.redeliver(deliveryId, this.callbackUrls[kind], options);
    if (delivery === undefined) throw new SandboxError('unknown_delivery', `No delivery has the id ${deliveryId}: GET /__sandbox/deliveries lists them (the oldest are forgotten past maxDeliveries)`);
    return delivery;
  }

  /** Moves the record clock forward, then applies the moves that time makes. */
  advanceClock(milliseconds: number): Promise<SettleResult[]> {
    // The range is what is left of the record clock's: a later time could not be shown.
    const left = CLOCK_RANGE.max - this.clock.now();
    checkValue('sandbox.clock.advance', { name: 'milliseconds', rule: { type: 'number', min: 0, max: left, unit: 'milliseconds' }, required: true, note: 'the record clock ends at 9999-12-31' }, milliseconds);
    this.clock.advance(milliseconds);
    return this.tick();
  }

  /** Sets the record clock, then applies the moves that time makes. */
  setClock(time: Date | number): Promise<SettleResult[]> {
    checkValue('sandbox.clock.set', CLOCK_TIME, time);
    this.clock.set(time instanceof Date ? time.getTime() : time);
    return this.tick();
  }

  /**
   * The moves time makes on the record clock: records whose lifetime ran out expire, and pending
   * transfers complete when `transferCompletionSeconds` is set. Moves happen at once; the promise
   * resolves when their callbacks are delivered.
   */
  async tick(): Promise<SettleResult[]> {
    const now = this.clock.now();
    const moves = this.records.expired(now).map((record) => {
      const { expiry }: KindRule = KINDS[record.kind];
      return this.#move(record, expiry?.to ?? record.status, undefined, true);
    });
    const completion = this.#transferCompletionMs;
    if (completion !== undefined) {
      for (const record of this.records.list()) {
        if (record.kind === 'transfer' && record.status === 'pending' && record.createdAt + completion <= now) moves.push(this.#move(record, 'completed', undefined, false));
      }
    }
    return Promise.all(moves);
  }

  async #move(record: StoredRecord, status: string, amount: number | undefined, expired: boolean, delivery: DeliverOptions = {}): Promise<SettleResult> {
    const now = this.clock.now();
    record.status = status;
    record.amount = amount ?? record.amount;
    record.updatedAt = now;
    record.completedAt = now;
    if (record.kind === 'transfer') this.#settleTransfer(record, status);
    const callback = this.#callbackOf(record, expired, delivery);
    return { record: snapshot(record), callback: callback === undefined ? undefined : await callback };
  }

  /** A pending transfer holds its amount out of the available balance; the end status decides where it goes. */
  #settleTransfer(record: StoredRecord, status: string): void {
    const walletId = record.params['wallet_id'];
    const eiban = typeof walletId === 'string' ? this.eiban(walletId) : undefined;
    if (eiban === undefined) return;
    const cents = toCents(record.amount);
    if (status === 'completed') eiban.balanceCents -= cents;
    else eiban.availableCents += cents;
  }

  /**
   * Why a record in its current status sends no callback, for the page and the settle control;
   * undefined when it sends one. One place decides, so that neither blames the status for a
   * missing URL.
   */
  noCallbackReason(record: Pick<StoredRecord, 'kind' | 'status'>): string | undefined {
    const { callback: kind }: KindRule = KINDS[record.kind];
    if (kind === undefined || !isCallbackStatus(kind, record.status)) return `status ${record.status} of this record sends no callback (spec 6.1)`;
    if (this.callbackUrls[kind] === undefined) return `no callback URL is configured for ${kind} callbacks (--callback ${kind}=<url>, or PUT /__sandbox/callback-urls)`;
    return undefined;
  }

  #callbackOf(record: StoredRecord, expired: boolean, delivery: DeliverOptions): Promise<DeliveryResult> | undefined {
    const { callback: kind }: KindRule = KINDS[record.kind];
    if (kind === undefined || !isCallbackStatus(kind, record.status)) return undefined;
    const url = this.callbackUrls[kind];
    if (url === undefined) return undefined;
    const payload = callbackPayload(kind, record, expired);
    // The account itself, its keys read at each attempt: each attempt is signed with the keys in
    // force when it is sent, the new ones after a rotation, as a service re-signing its retries
    // would. Only its keys are given: signCallback refuses what is not its option.
    const account = signerOf(kind, this.fixtures);
    return this.deliverer.deliver({ kind, trackingCode: record.code, status: record.status, url, sign: () => signCallback(payload, { apiKey: account.apiKey, secretKey: account.secretKey }) }, delivery);
  }
}

export function snapshot(record: StoredRecord): SandboxRecord {
  const date = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms));
  return {
    id: record.code,
    kind: record.kind,
    status: record.status,
    amount: record.amount,
    siteId: record.siteId,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
    expiresAt: date(record.expiresAt),
    completedAt: date(record.completedAt),
    params: { ...record.params },
  };
}
