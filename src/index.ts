/**
 * The Provider API and Dealer API clients, callback verification and signing, the types of every
 * request, answer and callback body, and the errors. Runs on every runtime. The zod schemas of
 * those bodies, under the same names, are in `payorch/schemas`.
 *
 * Answer and callback types list exactly the spec's fields, so a misspelt field does not compile.
 * `null` in an optional field reads as absent (`undefined`). Fields the service sends beyond the
 * spec are kept at run time: read them through `Record<string, unknown>`, for example
 * `const extra: Record<string, unknown> = answer.data; extra['new_field']`.
 * @module payorch
 */

// The public surface of payorch, one name per line, grouped by what a user does with it. Each name
// is declared, with the reason a user imports it, in test/package/main-entry-names.test.ts.
//
// Deliberately left out, internal and free to change without notice:
// - the transport and the endpoint tables: every call goes through a client method (or
//   ProviderClient.request() for a path it lacks); the resources' base, APIResource, is a type
//   only (the clients' declarations extend it) with no public member;
// - the generic ThirdPartyChannel (BankChannel, CryptoChannel and WalletChannel name its uses)
//   and the wire building blocks of src/internal (NoParams, envelope, iban, the open enum helper);
// - request signing (requestHash, callbackHash, Signing, Credentials): the clients sign every
//   request and signCallback signs a test callback;
// - the building blocks of answers (Customer, SiteRef, Pagination, the enums of one field such as
//   PaymentMethodState, ThirdPartyType or TransactionType, the callback status enums): the
//   answer's type names their fields and values, and CallbackStatus<K> a callback's statuses;
// - tables of values and defaults (CALLBACK_STATUSES, TRANSFER_END_STATUSES, the DEFAULT_*
//   constants but the callback age limit): the option docs give each default, and
//   TransferEndStatus names the end statuses;
// - the run-time checks isCallbackKind and isCallbackStatus (verifyCallback applies them);
// - the zod schemas as values: payorch/schemas exports them, under the names of their types here;
// - the sandbox, which has its own entry point, payorch/sandbox (Node only);
// - the PostgreSQL inbox, in its own entry point payorch/postgres, so that `pg` is never loaded here;
// - the Cloudflare inboxes, in payorch/d1 and payorch/durable-object, loaded only by their users.

// Provider API
export { ProviderClient } from './provider/client.js';
export type {
  ProviderClientOptions,
  ProviderRawRequest,
} from './provider/client.js';
export type { ProviderRequestOptions } from './provider/request-options.js';
// Every resource class, as a type: a new one needs no line here.
export type * from './provider/resources.js';
export type { ProviderThirdParty } from './provider/third-party/index.js';
export type { BankChannel } from './provider/third-party/channel.js';
export type { ThirdPartyGateways } from './provider/third-party/channel.js';
export type { CryptoChannel } from './provider/third-party/channel.js';
export type { WalletChannel } from './provider/third-party/channel.js';
export type { APIResource } from './internal/resource.js';

// The type of every request, answer and callback body, under the name of its zod schema in
// payorch/schemas; here as types only, so that the schemas stay out of this entry's names.
export type * from './schemas/index.js';

// Shared settings
export type { ClientOptions, ClientSettings } from './core/client-options.js';
export { APIPromise } from './core/api-promise.js';
export type { WithResponse } from './core/api-promise.js';
export type { LogLevel } from './core/log-level.js';
export type { RequestOptions } from './core/request-options.js';
export type { RawRequest } from './core/raw-request.js';

// Errors (PayorchError, isPayorchError, RequestValidationError and the callback errors come with payorch/webhooks' list, re-exported below)
export {
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  ConflictError,
  UnprocessableEntityError,
  NotFoundError,
  RateLimitError,
  InternalServerError,
  ResponseValidationError,
  TimeoutError,
  TransferWaitTimeoutError,
  RequestAbortedError,
} from './errors/api-error.js';
export type { AuthFailureReason, DealerErrorCode } from './errors/api-error.js';
export type { CallOutcome, ConnectionFailureReason, FailedCall } from './errors/error.js';

// Dealer API
export { DealerClient } from './dealer/client.js';
// Every resource class, as a type: a new one needs no line here.
export type * from './dealer/resources.js';
export type { NewTransactions } from './dealer/transactions.js';
export type { TransferEndStatus } from './dealer/transfer-status.js';
export type { WaitForTransferOptions } from './dealer/wait-options.js';
export { applyTransferStatuses } from './dealer/transfer-sweep.js';
export type { ApplyTransferStatusesOptions, EndedTransfer, TransferStatusOutcome } from './dealer/transfer-sweep.js';

// Callbacks: verifying, signing, receiving and applying once, now or from a queue. The one list
// of these names is payorch/webhooks' (src/webhooks/index.ts): the same objects under the same
// names, so the two entries cannot drift apart (under Node, payorch/webhooks' functions are its
// own, which load these on first call: src/webhooks/node.ts).
export * from './webhooks/index.js';
export {
  parseTrackingCode,
  safeParseTrackingCode,
} from './core/tracking-code.js';
export type {
  ParsedTrackingCode,
  TrackingCodePrefix,
  TrackingCodeDirection,
  RecordKind,
} from './core/tracking-code.js';

// Reliability: logging and hooks (retries, clock skew, proxies and the https rule are client options)
export type { RequestEvent, ResponseEvent } from './core/observability.js';
