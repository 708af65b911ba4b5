/** Settings every client takes. Per-call `RequestOptions` override `timeout` and `maxRetries`. */
export interface ClientOptions {
  /**
   * Address of the service, without `/api/provider` or `/api/dealer`. Must be https unless the
   * host is loopback or `allowInsecureHttp` is set.
   * @example 'https://pay.example.com'
   */
  readonly baseUrl: string;
  /** API key, sent as X-Api-Key. */
  readonly apiKey: string;
  /** Secret key. It only enters the hash; it is never sent, logged or put into an error. */
  readonly secretKey: string;
  /**
   * Milliseconds for a whole call, retries and body included.
   * @default 30000
   */
  readonly timeout?: number | undefined;
  /**
   * Retries of read-only calls after a connection failure, 408, 429 or 5xx. Payment-creating
   * calls are only retried when the connection was refused.
   * @default 2
   */
  readonly maxRetries?: number | undefined;
  /**
   * The `fetch` to use, for a proxy or a test double. Read at call time.
   * @default globalThis.fetch
   */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /**
   * Allows a plain-http `baseUrl` on a host that is not loopback. The hash does not cover the
   * body, so anyone on the path could change an amount or an IBAN: use only inside a trusted network.
   * @default false
   */
  readonly allowInsecureHttp?: boolean | undefined;
  /**
   * Largest answer body accepted, in bytes; a larger one fails with an `APIError`.
   * @default 4194304
   */
  readonly maxResponseBytes?: number | undefined;
  /**
   * Known server time minus local time, in milliseconds, added to every X-Timestamp. The client
   * also learns it from a "Request timestamp expired" answer.
   * @default 0
   */
  readonly clockOffsetMs?: number | undefined;
  /**
   * The clock, in milliseconds since the epoch, for tests.
   * @default Date.now
   */
  readonly now?: (() => number) | undefined;
}
