/**
 * Per-call settings, the second argument of every client method.
 * A per-call value beats the client's.
 */
export interface RequestOptions {
  /**
   * Stops the call, its retries and its body read.
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * await provider.welcome({ signal: AbortSignal.timeout(2_000) });
   * ```
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds for the whole call, retries and body included: a finite number from 1 to
   * 2147483647, else the call fails with a `RequestValidationError` before anything is sent.
   * @default the client's `timeout` (30000)
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * declare const tracking_code: string;
   * await provider.creditCard.getStatus({ tracking_code }, { timeout: 5_000 });
   * ```
   */
  readonly timeout?: number | undefined;
  /**
   * Retries of a resendable call after a connection failure, 408, 429 or 5xx. Other calls
   * are retried only when the connection was refused, so the service cannot have seen them.
   * An integer from 0 to 10.
   * @default the client's `maxRetries` (2)
   * @example
   * ```ts
   * import type { ProviderClient } from 'payorch';
   * declare const provider: ProviderClient;
   * await provider.welcome({ maxRetries: 0 });
   * ```
   */
  readonly maxRetries?: number | undefined;
}
