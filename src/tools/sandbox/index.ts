/**
 * A local Payment Orchestration Service for examples and tests: in process, over HTTP or as msw
 * handlers. Node only (it listens on sockets); kept out of the main entry's graph.
 * @module payorch/sandbox
 */

// The public surface of payorch/sandbox, one export per line. Everything else under src/tools/sandbox
// is internal. node:http is loaded only by listen(); msw is never imported (mswHandlers takes msw's `http`).

export { createSandbox, Sandbox, SANDBOX_BASE_URL } from './sandbox.js';
export type { HandleOptions, RedeliverOptions, SandboxClock } from './sandbox.js';
export type {
  SandboxOptions,
  SandboxProviderOptions,
  SandboxDealerOptions,
  SandboxSite,
  SandboxEiban,
  SandboxManualIban,
  SandboxGateway,
  SandboxPaymentMethods,
  CallbackUrls,
  CallbackRetryOptions,
} from './options.js';
export type { SandboxAccounts, SandboxPreviousKeys, SiteCredentials } from './fixtures.js';
export type { RotateKeysOptions, RotatedKeys } from './keys.js';
export type { SandboxRecord, SettleOptions, SettleResult } from './service.js';
export type { SandboxRecordKind } from './record-kinds.js';
export type { DeliveryAttempt, DeliveryResult } from './delivery.js';
export type { ListenOptions, RunningSandbox } from './listen.js';
export type { MswHttp } from './msw.js';
export { SandboxError } from './sandbox-error.js';
export type { SandboxErrorCode } from './sandbox-error.js';
