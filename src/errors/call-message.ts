// What a failed call says about whether the service acted on it: the outcome, the sentence every
// call's error ends its message with, and how a message names the call. Shared by ConnectionError
// (error.ts) and the errors of a client's call (api-error.ts).

/**
 * What a failed call tells about whether the service acted on it, and so whether money may
 * have moved:
 *
 * - `not_sent`: nothing reached the service, or it cannot have received it: input refused before
 *   sending, the connection refused, the call aborted or out of time before an attempt went on
 *   the wire. Sending it again cannot create a second record.
 * - `refused`: the service answered with a refusal (spec 7.1 to 7.4 bodies, a 4xx status,
 *   `success: false`): nothing was created.
 * - `unknown`: it may have been processed: a timeout, reset or abort after the attempt went on
 *   the wire, a 5xx or 3xx, an answer payorch cannot read. Do not send a payment again: the
 *   message says how to learn what became of it for that call (its callback, a status read where
 *   the spec has one, or the panel; docs/errors-and-retries.md).
 *
 * Resendable calls report it too; receiving them twice moves no money, so every outcome is safe to retry.
 */
export type CallOutcome = 'not_sent' | 'refused' | 'unknown';

/**
 * The call an error without an answer is about: which method of which client, and the request it
 * sent. Never a header: the keys travel there.
 */
export interface FailedCall {
  /** The client method, its API first: `provider.manual.startDeposit`, `dealer.transactions.list`. */
  readonly operation: string;
  /** The method and the full URL, as `APIError.request` holds them (typed in place, like it). */
  readonly request: { readonly method: string; readonly url: string };
  /**
   * True for a resendable call (the service receiving it twice cannot move money twice): the
   * message then says a retry is safe whatever happened. Left out, the message assumes the call
   * may have created a payment.
   */
  readonly resendable?: boolean | undefined;
}

/**
 * The sentence every error of a call ends its message with: whether the service may have acted,
 * and so whether money may have moved. The one place that says it, since most people log
 * `error.message` and nothing else; the CLI prints it as it is.
 */
export function outcomeSentence(outcome: CallOutcome, call: { readonly operation?: string | undefined; readonly resendable?: boolean | undefined }): string {
  switch (outcome) {
    case 'not_sent':
      return 'Nothing was sent: it is safe to send again.';
    case 'refused':
      return 'The service refused it: nothing was created.';
    case 'unknown':
      if (call.resendable === true) return 'The service may have processed it; receiving it twice moves no money, so it is safe to retry.';
      return `The service may have processed it: ${createdThing(call.operation)} may have been created. Do not send it again; ${nextStep(call.operation)} (docs/errors-and-retries.md).`;
  }
}

/** What a payment-creating operation makes, for the sentence above: `provider.manual.startDeposit` → the deposit. */
function createdThing(operation: string | undefined): string {
  if (operation === undefined) return 'a payment';
  if (/deposit/i.test(operation)) return 'the deposit';
  if (/withdraw/i.test(operation)) return 'the withdrawal';
  if (/transfer/i.test(operation)) return 'the transfer';
  if (/payment/i.test(operation)) return 'the payment';
  return 'a payment';
}

/**
 * How to learn what became of a payment whose outcome is unknown, naming only what exists for that
 * call (the errors guide's table): the spec gives a status endpoint to provider card payments
 * (4.9) and dealer transfers (4.13) only, a callback to the provider's deposits, withdrawals and
 * card payments and to dealer card payments (6.1), and neither to dealer manual IBAN records.
 */
function nextStep(operation: string | undefined): string {
  switch (operation) {
    case 'provider.creditCard.createPayment':
      return 'wait for its callback, or read its status (creditCard.getStatus) once you hold its tracking code';
    case 'dealer.transfers.send':
      return 'transfers have no callback: read its status (transfers.getStatus) once you know its transfer_id, or check the dealer panel';
    case 'dealer.manualIban.startDeposit':
    case 'dealer.manualIban.startWithdrawal':
      return 'it has no callback and no status endpoint: check the dealer panel';
    case undefined:
      return 'wait for its callback';
    default:
      // Every other payment of the spec ends with a callback; a raw request() may be anything.
      return /^(provider|dealer)\.request /.test(operation) ? "wait for its callback, if it has one, or check the service's panel" : 'wait for its callback';
  }
}

/**
 * How an error message names its call: `POST /api/provider/start-manual-deposit
 * (provider.manual.startDeposit)`. The path only: a query's values (wallet and transfer ids) stay
 * in `request.url`, not in a text that travels to logs and alerts.
 */
export function callLabel(call: FailedCall): string {
  return `${call.request.method} ${pathOf(call.request.url)} (${call.operation})`;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}
