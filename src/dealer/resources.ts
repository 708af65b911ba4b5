import type { APIPromise, Answered, WithResponse } from '../core/api-promise.js';
import { rawResponse } from '../core/api-promise.js';
import type { RequestOptions } from '../core/request-options.js';
import { checkOptions } from '../core/option-checks.js';
import { RequestAbortedError, TimeoutError, TransferWaitTimeoutError } from '../errors/api-error.js';
import { APIResource } from '../internal/resource.js';
import type { Transport } from '../internal/transport.js';
import { parseRequest } from '../internal/validation.js';
import type { DealerCardPayment, DealerCardPaymentParams } from './credit-card.js';
import { dateWindows, dayNumber, dayString } from './date-windows.js';
import type { EibanAccountList } from './eibans.js';
import type { ManualIbanDeposit, ManualIbanDepositParams, ManualIbanWithdrawal, ManualIbanWithdrawalParams } from './manual-iban.js';
import type { DealerSettings } from './settings.js';
import { checkTransactionRange } from './transaction-range.js';
import type { TransactionRange } from './transaction-range.js';
import type { NewTransactions, ReadNewTransactionsParams, Transaction, TransactionList, TransactionListParams, TransactionRangeParams, WindowTotals } from './transactions.js';
import { isTransferEndStatus } from './transfer-status.js';
import type { TransferEndStatus } from './transfer-status.js';
import { DEALER_CALLS } from './tables.js';
import type { SendMoneyParams, SendMoneyResult, TransferStatusParams, TransferStatusResult } from './transfers.js';
import { DEFAULT_INTERVAL_MS, DEFAULT_WAIT_MS, MAX_PAUSE_MS, WAIT_OPTIONS } from './wait-options.js';
import type { WaitForTransferOptions } from './wait-options.js';

// The dealer API's resources: what a DealerClient is made of at construction (DealerResources,
// below: a new resource is its class and its field there), without zod. Each
// call finds its endpoint row in the tables loaded on the first call (calls.ts), so
// this module imports no module that imports zod: the build would load it with payorch otherwise.

/**
 * Calendar days per request of `iterate()`. The service refuses a range "longer than 3 days"
 * (spec 7.4) without saying whether 3 days is end minus start or the days covered: three days
 * covered (start..start+2) is within the limit under both readings.
 */
const WINDOW_DAYS = 3;

/** The default look-back of `readNew()`: one day. */
const DEFAULT_LOOK_BACK_SECONDS = 86_400;

/** Pages read at most per window by `readNew()`: 100,000 records in 3 days, against an answer that never ends. */
const MAX_PAGES_PER_WINDOW = 1000;


/** Dealer card payments (spec 4.13); the credit card method must be active for the dealer. */
export class DealerCreditCard extends APIResource {
  /**
   * Creates a card payment; redirect the customer to `data.payment_url`. The result arrives by
   * credit card callback, keyed by `data.tracking_code`. Not retried after an ambiguous failure.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * declare function redirect(url: string): void; // your framework's
   * const { data } = await dealer.creditCard.createPayment({
   *   username: 'ada', firstname: 'Ada', lastname: 'Yılmaz', email: 'ada@example.com', phone: '+905551112233', amount: 450,
   * });
   * redirect(data.payment_url);
   * ```
   */
  createPayment(params: DealerCardPaymentParams, options?: RequestOptions): APIPromise<DealerCardPayment> {
    return this._send(DEALER_CALLS, (calls) => calls.dealerCardPaymentEndpoint, params, options);
  }
}

/** The dealer's E-IBAN accounts (spec 4.13). */
export class DealerEibans extends APIResource {
  /**
   * Lists the dealer's E-IBAN accounts with their balances. Each `wallet_id` is what
   * `transactions` and `transfers` take. Safe to repeat, so it retries on transient failures.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { eibans } = await dealer.eibans.list();
   * for (const account of eibans) console.log(account.wallet_id, account.available_balance);
   * ```
   */
  list(options?: RequestOptions): APIPromise<EibanAccountList> {
    return this._send(DEALER_CALLS, (calls) => calls.eibanListEndpoint, undefined, options);
  }
}

/** The dealer's manual IBAN: deposit details for a customer, and manual withdrawal requests (spec 4.13). */
export class DealerManualIban extends APIResource {
  /**
   * Gets the bank account a customer should pay `amount` into, chosen by the service's amount
   * limits. Show the customer `data.iban_no` (or `data.formatted_iban`), `data.account_name` and
   * `data.bank_name`.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { data } = await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1', fullname: 'Ada Yılmaz', amount: 1500 });
   * console.log(`Pay ${data.amount} TRY to ${data.account_name}, ${data.formatted_iban ?? data.iban_no}`);
   * ```
   */
  startDeposit(params: ManualIbanDepositParams, options?: RequestOptions): APIPromise<ManualIbanDeposit> {
    return this._send(DEALER_CALLS, (calls) => calls.manualIbanDepositEndpoint, params, options);
  }

  /**
   * Requests a manual withdrawal to the recipient's IBAN; it is `pending` when created.
   * Not retried after an ambiguous failure: check before sending it again.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { data } = await dealer.manualIban.startWithdrawal({
   *   username: 'ada', userid: 'u-1', amount: 750, recipient_name: 'Ada Yılmaz', recipient_iban: 'TR330006100519786457841326',
   * });
   * console.log(data.tracking_code, data.status); // WDR-..., pending
   * ```
   */
  startWithdrawal(params: ManualIbanWithdrawalParams, options?: RequestOptions): APIPromise<ManualIbanWithdrawal> {
    return this._send(DEALER_CALLS, (calls) => calls.manualIbanWithdrawEndpoint, params, options);
  }
}

/** The dealer's settings (spec 4.13); the answer's type is {@link DealerSettings}. */
export class DealerSettingsResource extends APIResource {
  /**
   * Reads the dealer's name and which payment methods are active. Safe to repeat, so it retries
   * on transient failures; also a quick check of the keys and the clock.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { dealer_name, payment_methods } = await dealer.settings.get();
   * if (payment_methods.credit_card !== 'active') console.log(`${dealer_name} cannot take card payments`);
   * ```
   */
  get(options?: RequestOptions): APIPromise<DealerSettings> {
    return this._send(DEALER_CALLS, (calls) => calls.settingsEndpoint, undefined, options);
  }
}

/** A pause that ends early, rejecting, when `signal` fires. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Transfers from the dealer's E-IBANs to bank accounts (spec 4.13). */
export class DealerTransfers extends APIResource {
  /**
   * Sends money from an E-IBAN to a bank account; the transfer starts `pending`. It is never
   * retried once the service may have received it: after a timeout or a dropped connection, look
   * for the transfer before sending again. Failures carry `code`: `INSUFFICIENT_BALANCE`,
   * `INVALID_IBAN`, `MIN_AMOUNT_ERROR` or `WALLET_NOT_ASSIGNED`.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { transfer } = await dealer.transfers.send({
   *   wallet_id: 'WLT-1', recipient_iban: 'TR330006100519786457841326', recipient_name: 'Ada Yılmaz', amount: 250,
   * });
   * console.log(transfer.transfer_id, transfer.status); // TRF-..., pending
   * ```
   */
  send(params: SendMoneyParams, options?: RequestOptions): APIPromise<SendMoneyResult> {
    return this._send(DEALER_CALLS, (calls) => calls.sendMoneyEndpoint, params, options);
  }

  /**
   * Reads a transfer's status. Safe to repeat, so it retries on transient failures.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { transfer } = await dealer.transfers.getStatus({ transfer_id: 'TRF-8fK2pQ' });
   * if (transfer.status === 'completed') console.log('paid at', transfer.completed_at);
   * ```
   */
  getStatus(params: TransferStatusParams, options?: RequestOptions): APIPromise<TransferStatusResult> {
    return this._send(DEALER_CALLS, (calls) => calls.transferStatusEndpoint, params, options);
  }

  /**
   * Waits for a transfer to end: reads its status (spec 4.13), pausing between reads from
   * `interval` and doubling up to 30 s, until it is `completed`, `failed` or `cancelled`, and
   * resolves with that answer. Transfers have no callback (spec 6.1): this, or a scheduled sweep
   * with `applyTransferStatuses`, is how their end is learnt. Each read keeps the client's retry
   * rules for reads, and its `timeout` is the client's, cut to what is left of the wait. A failed read (after
   * its retries) rejects with its error.
   *
   * @throws {RequestValidationError} for a bad option, naming it and its range, before any read
   * @throws {TransferWaitTimeoutError} at the deadline, with the last status read: the transfer may still complete, so money may have moved
   * @throws {RequestAbortedError} promptly when `signal` fires
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * declare const wallet_id: string;
   * declare const recipient_iban: string;
   * declare const recipient_name: string;
   * declare function markPaid(transferId: string): Promise<void>;
   * const { transfer } = await dealer.transfers.send({ wallet_id, recipient_iban, recipient_name, amount: 250 });
   * const ended = await dealer.transfers.waitFor(transfer.transfer_id, { timeout: 120_000 });
   * if (ended.transfer.status === 'completed') await markPaid(transfer.transfer_id);
   * ```
   */
  async waitFor(transferId: string, options: WaitForTransferOptions = {}): Promise<TransferStatusResult & { readonly transfer: { readonly status: TransferEndStatus } }> {
    checkOptions('dealer.transfers.waitFor', options, WAIT_OPTIONS);
    const calls = await DEALER_CALLS.load();
    const params = parseRequest('dealer.transfers.waitFor', calls.TransferStatusParams, { transfer_id: transferId });
    const timeout = options.timeout ?? DEFAULT_WAIT_MS;
    const { signal } = options;
    const deadline = Date.now() + timeout;
    let delay = options.interval ?? DEFAULT_INTERVAL_MS;
    const maxPause = Math.max(delay, MAX_PAUSE_MS);
    let lastStatus: string | undefined;
    const aborted = (): never => {
      const call = this._transport.describeCall(calls.transferStatusEndpoint, params);
      throw new RequestAbortedError(signal?.reason, { ...call, outcome: 'not_sent' });
    };
    for (;;) {
      if (signal?.aborted === true) aborted();
      const left = deadline - Date.now();
      if (left <= 0) throw new TransferWaitTimeoutError(transferId, timeout, lastStatus);
      let answer: TransferStatusResult;
      try {
        answer = await this.getStatus(params, { signal, timeout: Math.min(left, this._transport.callTimeout) });
      } catch (error) {
        // The read's own timeout was cut to the deadline: running out is the wait's deadline.
        if (error instanceof TimeoutError && Date.now() >= deadline) throw new TransferWaitTimeoutError(transferId, timeout, lastStatus);
        throw error;
      }
      const { status } = answer.transfer;
      if (isTransferEndStatus(status)) return answer as TransferStatusResult & { readonly transfer: { readonly status: TransferEndStatus } };
      lastStatus = status;
      const wait = Math.min(delay, deadline - Date.now());
      if (wait > 0) await pause(wait, signal).catch(aborted);
      delay = Math.min(delay * 2, maxPause);
    }
  }
}

/**
 * Every transaction of a date range, read lazily: one request per page, at most one page held at
 * a time. Iterate it with `for await`, or collect it with `toArray()`. Each iteration starts
 * again from the first day.
 */
export class TransactionIterable extends APIResource implements AsyncIterable<Transaction> {
  readonly #range: TransactionRange;
  readonly #options: RequestOptions;
  /** @internal */
  constructor(transport: Transport, range: TransactionRange, options: RequestOptions) {
    super(transport);
    this.#range = range;
    this.#options = options;
  }

  /**
   * Starts reading from the first day; what `for await` calls.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * declare const range: { wallet_id: string; start_date: string; end_date: string };
   * for await (const tx of dealer.transactions.iterate(range)) console.log(tx.transactionId);
   * ```
   */
  async *[Symbol.asyncIterator](): AsyncGenerator<Transaction, void, undefined> {
    const signal = this.#options.signal;
    for await (const { value, next } of this.#pages()) {
      for (const transaction of value.transactions) {
        // Records of a page already read are not handed out after an abort either.
        if (signal?.aborted === true) {
          const call = this._transport.describeCall((await DEALER_CALLS.load()).transactionListEndpoint, next);
          throw new RequestAbortedError(signal.reason, { ...call, outcome: 'not_sent' });
        }
        yield transaction;
      }
    }
  }

  /**
   * The same reading, a page at a time, each with the HTTP answer it came from (as
   * `withResponse()` gives it): `{ body, response }`, `body` being the page as `list()` returns it.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * declare const range: { wallet_id: string; start_date: string; end_date: string };
   * for await (const { body, response } of dealer.transactions.iterate(range).pages()) {
   *   console.log(response.status, body.pagination.current_page, body.transactions.length);
   * }
   * ```
   */
  async *pages(): AsyncGenerator<WithResponse<TransactionList>, void, undefined> {
    for await (const answered of this.#pages()) yield { body: answered.value, response: rawResponse(answered) };
  }

  /** Each page of the range in order, with its answer and the query of the page after it. */
  async *#pages(): AsyncGenerator<Answered<TransactionList> & { readonly next: Readonly<Record<string, string | number>> }, void, undefined> {
    const { wallet_id, start_date, end_date } = this.#range;
    for (const window of dateWindows(start_date, end_date, WINDOW_DAYS)) {
      let first: WindowTotals | undefined;
      let previous: ReadonlySet<string> = new Set();
      for (let page = 1; ; page++) {
        const answered = await this._sendAnswered(DEALER_CALLS, (calls) => calls.transactionPageEndpoint(page, first, previous), { wallet_id, ...window, page }, this.#options);
        const data = answered.value;
        first ??= data.pagination;
        yield { ...answered, next: { wallet_id, ...window, page: page + 1 } };
        // pageOf checked that has_more agrees, and that total_pages is within the ceiling.
        if (page >= data.pagination.total_pages) break;
        previous = new Set(data.transactions.map((transaction) => transaction.transactionId));
      }
    }
  }

  /**
   * Reads the whole range into an array. It holds every record in memory: for long ranges,
   * prefer `for await`.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * declare const wallet_id: string;
   * const all = await dealer.transactions.iterate({ wallet_id, start_date: '2026-03-01', end_date: '2026-03-31' }).toArray();
   * ```
   */
  async toArray(): Promise<Transaction[]> {
    const all: Transaction[] = [];
    for await (const transaction of this) all.push(transaction);
    return all;
  }
}

/** E-IBAN transaction history (spec 4.13). */
export class DealerTransactions extends APIResource {
  /**
   * Reads one page (100 records) of an E-IBAN's transactions over at most 3 days. A longer range
   * is refused before sending; `iterate()` takes any range.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * const { transactions, pagination } = await dealer.transactions.list({
   *   wallet_id: 'WLT-1', start_date: '2026-03-01', end_date: '2026-03-03', page: 2,
   * });
   * if (pagination.has_more) console.log('page 3 follows');
   * ```
   */
  list(params: TransactionListParams, options?: RequestOptions): APIPromise<TransactionList> {
    return this._send(DEALER_CALLS, (calls) => calls.transactionListEndpoint, params, options);
  }

  /**
   * Every transaction of any date range: the range is read in windows of 3 calendar days, in
   * date order and sharing no day, and each window page by page (records in the service's order),
   * one request at a time as you consume them. A failure ends the iteration with its error after
   * the records before it; `signal` ends it with `RequestAbortedError`. `timeout` and
   * `maxRetries` apply to each request.
   *
   * No answer can make it loop or hand out a record twice: a window ends at its `total_pages`,
   * and has at most ceil(total_records / 100) pages (one when empty), as its first page gives
   * them; a page that is not the one asked for, contradicts `total_pages` with `has_more`, changes
   * the totals or repeats a record of the page before ends the iteration with a
   * `ResponseValidationError` that keeps the page as received.
   *
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * for await (const tx of dealer.transactions.iterate({ wallet_id: 'WLT-1', start_date: '2026-03-01', end_date: '2026-03-31' })) {
   *   console.log(tx.date, tx.amount, tx.senderName);
   * }
   * ```
   * @throws {RequestValidationError} at once, when the range is not two calendar dates in order
   */
  iterate(params: TransactionRangeParams, options: RequestOptions = {}): TransactionIterable {
    return new TransactionIterable(this._transport, checkTransactionRange('transactions.iterate', params), options);
  }

  /**
   * Reads the transactions that arrived since the run before, for a job that runs on a schedule.
   * The history has no "since" query, only days, 3 a request and 100 records a page (spec 4.13),
   * so each run reads every day from `lookBackSeconds` before the previous run's start to
   * tomorrow (the service's dates carry no zone) and hands out only the transactions whose
   * `transactionId` the cursor has not seen. That makes it safe across window and page edges,
   * against pages that shift while they are read (a record moved onto a page already read is
   * found by a later run, when dated within the look-back), and after a crash.
   *
   * It is at least once, not exactly once: if your process stops after applying a run's
   * transactions but before storing its `cursor`, the next run hands them out again. Store the
   * cursor in the same database transaction as what you did with them, and it is exactly once;
   * otherwise apply each idempotently by `transactionId`. A failed request rejects the whole run
   * with its error and no cursor: run again with the one you have.
   *
   * @throws {RequestValidationError} before sending, for a bad parameter or a cursor that is not one of this wallet's
   * @example
   * ```ts
   * import type { DealerClient } from 'payorch';
   * declare const dealer: DealerClient;
   * interface Tx {
   *   creditDeposit(id: string, from: string | undefined, amount: string): Promise<void>;
   *   saveCursor(wallet: string, cursor: string): Promise<void>;
   * }
   * declare const db: { cursorOf(wallet: string): Promise<string | undefined>; transaction(work: (tx: Tx) => Promise<void>): Promise<void> };
   * const stored = await db.cursorOf('WLT-1'); // undefined on the first run
   * const { transactions, cursor } = await dealer.transactions.readNew({ wallet_id: 'WLT-1', cursor: stored });
   * await db.transaction(async (tx) => {
   *   for (const t of transactions) await tx.creditDeposit(t.transactionId, t.senderIban, t.amount);
   *   await tx.saveCursor('WLT-1', cursor); // with what was applied: exactly once
   * });
   * ```
   */
  async readNew(params: ReadNewTransactionsParams, options: RequestOptions = {}): Promise<NewTransactions> {
    const operation = 'dealer.transactions.readNew';
    const { wallet_id, cursor, start_date, lookBackSeconds = DEFAULT_LOOK_BACK_SECONDS } = parseRequest(operation, (await DEALER_CALLS.load()).ReadNewTransactionsParams, params);
    const readAt = Date.now();
    const { decodeCursor, dayOfDate, encodeCursor } = await DEALER_CALLS.load();
    const previous = cursor === undefined ? undefined : decodeCursor(operation, cursor, wallet_id);
    const lookBackMs = lookBackSeconds * 1000;
    const today = Math.floor(readAt / 86_400_000);
    const first = previous !== undefined ? Math.floor((Math.min(previous.readAt, readAt) - lookBackMs) / 86_400_000) : start_date !== undefined ? dayNumber(start_date) : Math.floor((readAt - lookBackMs) / 86_400_000);
    const seen = new Map(previous?.seen);
    const fresh: Transaction[] = [];
    for (const window of dateWindows(dayString(Math.min(first, today)), dayString(today + 1), WINDOW_DAYS)) {
      // Pages may shift while read: read until the service says there is no more, never past the
      // most pages it announced (an answer that ignores `page` cannot make it loop), and skip ids
      // already seen.
      let pages = 1;
      for (let page = 1; page <= pages && page <= MAX_PAGES_PER_WINDOW; page++) {
        const answer = await this.list({ wallet_id, ...window, page }, options);
        for (const transaction of answer.transactions) {
          if (seen.has(transaction.transactionId)) continue;
          seen.set(transaction.transactionId, dayOfDate(transaction.date, today));
          fresh.push(transaction);
        }
        if (!answer.pagination.has_more || answer.transactions.length === 0) break;
        pages = Math.max(pages, answer.pagination.total_pages);
      }
    }
    // The next run starts lookBackSeconds before this one: ids dated before that are never read again.
    const nextFirst = Math.floor((readAt - lookBackMs) / 86_400_000);
    for (const [id, day] of seen) if (day < nextFirst) seen.delete(id);
    return { transactions: fresh, cursor: encodeCursor({ walletId: wallet_id, readAt, seen }) };
  }
}

/**
 * The parts of a `DealerClient`, one field per resource, each named as its calls' operation names
 * begin (`manualIban.startDeposit`). The client extends it.
 */
export class DealerResources extends APIResource {
  /** Deposit IBANs and manual withdrawal requests. */
  readonly manualIban = new DealerManualIban(this._transport);
  /** The dealer's E-IBAN accounts with balances. */
  readonly eibans = new DealerEibans(this._transport);
  /** E-IBAN transaction history, by page or over any date range. */
  readonly transactions = new DealerTransactions(this._transport);
  /** Transfers from an E-IBAN to a bank account, and their status. */
  readonly transfers = new DealerTransfers(this._transport);
  /** Card payments. */
  readonly creditCard = new DealerCreditCard(this._transport);
  /** The dealer's name and which payment methods are active. */
  readonly settings = new DealerSettingsResource(this._transport);
}
