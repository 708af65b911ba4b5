/**
 * Receiving the service's callbacks, and nothing else: verification, signing (for tests), the
 * receiver with its in-memory inbox, the inbox interface, deferred jobs and their types. It loads
 * neither ky nor zod, and under Node only its error classes until one of its functions is first
 * called, so a serverless function that only receives callbacks starts fast. Its error classes
 * are those `payorch` exports: an error thrown through one entry is `instanceof` the class of the
 * other.
 *
 * The callback types are exported as types only: their zod schemas (`DepositCallback.parse`)
 * live in `payorch/schemas`.
 * @module payorch/webhooks
 */

// Verifying and signing
export {
  verifyCallback,
  DEFAULT_CALLBACK_MAX_AGE_SECONDS,
} from './verify.js';
export type {
  CallbackInput,
  VerifyCallbackOptions,
} from './verify.js';
export type { PreviousSecretKey } from './verify.js';
export { verifyCallbackRequest } from './verify.js';
export { signCallback } from './sign.js';
export type {
  SignCallbackPayload,
  SignCallbackOptions,
  SignedCallback,
} from './sign.js';
export type { CallbackHeaders } from './headers.js';
export type { CallbackBody } from './body.js';
export type {
  VerifiedCallback,
  DepositCallback,
  WithdrawalCallback,
  CreditCardCallback,
  DealerCreditCardCallback,
  UnknownCallback,
} from './schemas.js';
export type {
  CallbackKind,
  CallbackStatus,
} from './kinds.js';
export type { Api } from '../core/api.js';

// Errors
export {
  PayorchError,
  // One guard for every error class, holding across the ESM and CommonJS copies of payorch, as `instanceof` does.
  isPayorchError,
  RequestValidationError,
  CallbackVerificationError,
  CallbackJobError,
  InboxError,
  InboxFullError,
  InboxCommitError,
  QueueError,
  CallbackRetentionError,
  // What a receiver's confirm or unhandled: 'retry' refused, and what onError is told of code not payorch's that threw.
  NotConfirmedError,
  UnhandledError,
  CallbackHandlingError,
  // Errors of the calls a receiver's reconcile makes and of the tracking codes it reads.
  ConnectionError,
  TrackingCodeError,
} from '../errors/error.js';
export type { ValidationIssue, CallbackVerificationReason, CallbackJobField } from '../errors/error.js';

// Receiving: verify, route, apply once, now or from a queue
export { createCallbackReceiver } from './receiver/receiver.js';
export type {
  CallbackReceiver,
  CallbackReceiverOptions,
  CallbackApplyOptions,
} from './receiver/receiver.js';
export type { ReconcileOptions, ReconcileResult, ReconcileResultKind } from './receiver/reconcile.js';
export type { CallbackReceiverAnswer } from './receiver/answer.js';
export type { CallbackHandler } from './receiver/routes.js';
export type { CallbackConfirm } from './receiver/apply-once.js';
export type { CallbackErrorDetails, ReportedCallback } from './receiver/report.js';
export type { CallbackJob, SignedCallbackJob, StatusReadJob } from './job.js';
export { resealCallbackJob } from './seal.js';
export type { JobSeal, ResealKeys } from './seal.js';
export { callbackKeyString } from './key.js';
export { confirmWithCardStatus } from './confirm-card.js';
export type { ConfirmWithCardStatusOptions } from './confirm-card.js';
export type { AppliedCallback, CardEndStatus, CardStatusAnswer, CardStatusRead, CardStatusReadPayload, CardStatusSource } from './status-read.js';
export type {
  CallbackEventName,
  CallbackOfEvent,
} from './events.js';
export { createMemoryInbox } from '../inboxes/memory.js';
export type {
  MemoryInboxContext,
  MemoryInboxOptions,
} from '../inboxes/memory.js';
export type {
  CallbackInbox,
  CallbackInboxContext,
  CallbackKey,
  CallbackInboxOutcome,
  CallbackProgress,
} from '../inboxes/inbox.js';
export type {
  NodeRequestLike,
  NodeResponseLike,
} from './receiver/node-handler.js';

// Logging and tracing
export type { Logger, LogFunction } from '../core/observability.js';
export type { SpanLike, SpanLinkContext, TracerLike } from '../core/tracing.js';
export type { MeterLike } from '../core/metrics.js';
