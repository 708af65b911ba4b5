/**
 * The call an error without an answer is about: which method of which client, and the request it
 * sent. Never a header: the keys travel there.
 */
export interface FailedCall {
  /** The client method, its API first: `provider.manual.startDeposit`, `dealer.transactions.list`. */
  readonly operation: string;
  /** The method and the full URL, as `APIError.request` holds them (typed in place, like it). */
  readonly request: { readonly method: string; readonly url: string };
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
