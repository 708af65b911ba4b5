/**
 * What both clients' `request()` take: a call to an endpoint the SDK does not wrap (yet), or one
 * whose "not shown" choice (docs/spec-gaps.md) you need to override.
 */
export interface RawRequest {
  /** The spec shows POST for every endpoint with a sample. */
  readonly method: 'GET' | 'POST';
  /**
   * Path below the API path (`/api/provider` or `/api/dealer`), starting with `/`. It may not
   * leave that path: no `.` or `..` segment (percent-encoded or not), no empty segment (`//`), no
   * query or fragment (use `query`), no backslash, nothing but URL path characters.
   * @example '/third-party/bank/gateways'
   */
  readonly path: string;
  /** JSON body of a POST, sent as given, its fields unchecked; one JSON cannot hold (a cycle, a BigInt) is refused. A GET has none. */
  readonly body?: unknown;
  /** Query parameters: strings and finite numbers; `undefined` values are left out. */
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /**
   * Extra headers; each name must be an HTTP token. The signing headers (X-Api-Key, X-Hash,
   * X-Timestamp, X-Key, X-Credential-Key) always win.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * True only when the service receiving it twice cannot move money twice: then it may be resent
   * after an ambiguous failure. Otherwise it is sent at most once once it may have reached the service.
   * @default false
   */
  readonly resendable?: boolean;
}
