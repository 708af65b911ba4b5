import * as z from 'zod/mini';
import type { APIPromise } from '../core/api-promise.js';
import { defineEndpoint } from '../internal/endpoint.js';
import { lenientObject, openEnum, requestAmount, requiredString, responseDecimal, responseString, strictObject, successFlag } from '../internal/schema-blocks.js';
import type { RequestOptions } from '../core/request-options.js';
import { iban } from '../internal/shared-shapes.js';
import { APIResource } from '../internal/resource.js';
import { parseRequest } from '../internal/validation.js';
import { MAX_TIMEOUT_MS, checkOptions, declareOptions } from '../core/option-checks.js';
import { RequestAbortedError, TimeoutError, TransferWaitTimeoutError } from '../errors/api-error.js';

/** Body of a transfer from an E-IBAN to a bank account (spec 4.13): at least 10.00 TRY. */
export const SendMoneyParams = /* @__PURE__ */ strictObject(() => ({
  /** The source E-IBAN's `wallet_id`, from `dealer.eibans.list()`. Required (spec 4.13). */
  wallet_id: requiredString(),
  /** The recipient's IBAN. Required; 15 to 34 characters (spec 2.7, 4.13). */
  recipient_iban: iban(),
  /** The recipient's name as the bank holds it. Required, not blank (spec 2.7, 4.13). */
  recipient_name: requiredString(),
  /** The amount in TRY, a JSON number. Required; at least 10.00 (spec 4.13, 8: below it the service answers MIN_AMOUNT_ERROR). */
  amount: requestAmount(10),
  /** Free text for the transfer. Optional (spec 2.7, 4.13). */
  description: z.optional(z.string()),
}));
export type SendMoneyParams = z.input<typeof SendMoneyParams>;

/** Query of a transfer's status (spec 4.13). */
export const TransferStatusParams = /* @__PURE__ */ strictObject(() => ({
  /** The `transfer_id` (`TRF-...`) that `send()` returned. Required (spec 2.7, 4.13). */
  transfer_id: requiredString(),
}));
export type TransferStatusParams = z.input<typeof TransferStatusParams>;

/** States of a transfer (spec 3.1); `pending` until it ends. */
export const TransferStatus = /* @__PURE__ */ openEnum(['pending', 'completed', 'failed', 'cancelled']);
export type TransferStatus = z.infer<typeof TransferStatus>;

/** The statuses that end a transfer (spec 3.1): nothing follows them. */
export const TRANSFER_END_STATUSES = ['completed', 'failed', 'cancelled'] as const;
/** A status that ends a transfer. */
export type TransferEndStatus = (typeof TRANSFER_END_STATUSES)[number];

/** Whether `status` ends a transfer; a status the SDK does not know is not taken for an end. */
export function isTransferEndStatus(status: string): status is TransferEndStatus {
  return (TRANSFER_END_STATUSES as readonly string[]).includes(status);
}

/** A transfer (spec 2.7). `description` and `completed_at` come with the status query only. */
export const Transfer = /* @__PURE__ */ lenientObject(() => ({
  /** `TRF-` and an alphanumeric segment (spec 2.7, 4.13). */
  transfer_id: z.string(),
  /** The transfer's status: `pending` on creation (spec 3). */
  status: TransferStatus,
  /** Decimal string, for example `"250.00"` (spec 2.7, 4.13). */
  amount: responseDecimal(),
  /** The recipient's IBAN, as sent (spec 2.7). */
  recipient_iban: z.optional(z.string()),
  /** The recipient's name, as sent (spec 2.7). */
  recipient_name: z.optional(responseString()),
  /** `null` or absent when the transfer was sent without one (spec 2.7, 4.13). */
  description: z.optional(z.string()),
  /** ISO 8601 without offset (spec 2.7). */
  created_at: z.optional(z.string()),
  /** ISO 8601; `null` or absent while the transfer has not ended (spec 2.7). */
  completed_at: z.optional(z.string()),
}));
export interface Transfer extends z.infer<typeof Transfer> {}

/** The answer of send-money: the new transfer, `pending` (spec 4.13). */
export const SendMoneyResult = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** Human-readable text about the result (spec 2.1). */
  message: z.optional(z.string()),
  /** The transfer (spec 2.7); `description` and `completed_at` in status queries only. */
  transfer: Transfer,
}));
export interface SendMoneyResult extends z.infer<typeof SendMoneyResult> {}

/** The answer of the status query (spec 4.13). */
export const TransferStatusResult = /* @__PURE__ */ lenientObject(() => ({
  /** `true` when the call succeeded (spec 2.1). */
  success: successFlag(),
  /** The dealer's name (spec 4.13). */
  dealer_name: z.optional(z.string()),
  /** The transfer (spec 2.7); `description` and `completed_at` in status queries only. */
  transfer: Transfer,
}));
export interface TransferStatusResult extends z.infer<typeof TransferStatusResult> {}

export const sendMoneyEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'transfers.send',
  // Spec 4.13: method not shown. POST, as every body-carrying sample of the spec (docs/spec-gaps.md).
  method: 'POST',
  path: '/send-money',
  hash: 'basic',
  resendable: false,
  params: SendMoneyParams,
  response: SendMoneyResult,
});

export const transferStatusEndpoint = /* @__PURE__ */ defineEndpoint({
  operation: 'transfers.getStatus',
  method: 'GET',
  path: '/transfer-status',
  hash: 'basic',
  resendable: true,
  params: TransferStatusParams,
  response: TransferStatusResult,
});

/** Settings of `dealer.transfers.waitFor`. */
export interface WaitForTransferOptions {
  /**
   * How long to wait for an end status, in milliseconds, reads included.
   * @default 300000 (5 minutes)
   * @example 60_000
   */
  readonly timeout?: number | undefined;
  /**
   * The first pause between two reads, in milliseconds; each pause doubles, up to 30 s (or this
   * value when it is larger).
   * @default 1000
   * @example 5_000
   */
  readonly interval?: number | undefined;
  /**
   * Stops the wait, and the read under way, with a `RequestAbortedError`.
   * @example AbortSignal.timeout(10_000)
   */
  readonly signal?: AbortSignal | undefined;
}

const DEFAULT_WAIT_MS = 300_000;
const DEFAULT_INTERVAL_MS = 1_000;
const MAX_PAUSE_MS = 30_000;

export const WAIT_OPTIONS = /* @__PURE__ */ declareOptions<WaitForTransferOptions>()([
  { name: 'timeout', rule: { type: 'number', min: 1, max: MAX_TIMEOUT_MS, integer: true, unit: 'milliseconds' }, default: DEFAULT_WAIT_MS },
  { name: 'interval', rule: { type: 'number', min: 10, max: 3_600_000, integer: true, unit: 'milliseconds' }, default: DEFAULT_INTERVAL_MS },
  { name: 'signal', rule: { type: 'object', methods: ['addEventListener', 'removeEventListener'], allowed: 'an AbortSignal' } },
]);

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
    return this._send(sendMoneyEndpoint, params, options);
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
    return this._send(transferStatusEndpoint, params, options);
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
    const params = parseRequest('dealer.transfers.waitFor', TransferStatusParams, { transfer_id: transferId });
    const timeout = options.timeout ?? DEFAULT_WAIT_MS;
    const { signal } = options;
    const deadline = Date.now() + timeout;
    let delay = options.interval ?? DEFAULT_INTERVAL_MS;
    const maxPause = Math.max(delay, MAX_PAUSE_MS);
    let lastStatus: string | undefined;
    const aborted = (): never => {
      const call = this._transport.describeCall(transferStatusEndpoint, params);
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
