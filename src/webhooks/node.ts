/**
 * payorch/webhooks as Node imports it (package.json `exports`, the `module-sync` condition, which
 * Node sets where `require()` loads ES modules): the names of ./index.ts, of which only the error
 * classes and a constant are here; each function loads the rest (./index.js, built) on its first
 * call, synchronously. An import then compiles the error classes alone, not the code that verifies
 * and receives: about a third of what the whole entry costs a cold start (bench/findings.md 29).
 * The error classes are here because `instanceof` needs them before any call, and the entry's code
 * imports them from the same file, so there is one copy of each. Should a loader give the
 * `require()` a copy of its own (tsx, a test runner's isolation), `instanceof` still holds across
 * the two: the classes read their brand (src/errors/brand.ts).
 *
 * Runtimes and bundlers that would not follow the `require()` get ./index.ts itself: bundlers
 * through the `module` condition, Bun and Deno through theirs, edge runtimes through `default`.
 */
import type * as NodeModule from 'node:module';
import type * as NodeUrl from 'node:url';
import type * as Webhooks from './index.js';
import { PayorchError } from '../errors/error.js';

export {
  PayorchError,
  isPayorchError,
  RequestValidationError,
  CallbackVerificationError,
  CallbackJobError,
  InboxError,
  InboxFullError,
  InboxCommitError,
  QueueError,
  CallbackRetentionError,
  NotConfirmedError,
  UnhandledError,
  CallbackHandlingError,
  ConnectionError,
  TrackingCodeError,
} from '../errors/error.js';
export { DEFAULT_CALLBACK_MAX_AGE_SECONDS } from '../core/callback-age.js';

let webhooks: typeof Webhooks | undefined;

function load(): typeof Webhooks {
  if (webhooks !== undefined) return webhooks;
  try {
    // Node's built-ins taken on first use, not imported: an import of node:module costs this
    // file's import more than its own code. The file is named by a URL of this module's, which file
    // tracers (@vercel/nft, Next.js standalone builds) follow, so that a traced deploy carries it.
    const host = (globalThis as { readonly process?: { readonly getBuiltinModule?: (id: string) => unknown } }).process;
    const { createRequire } = host?.getBuiltinModule?.('node:module') as typeof NodeModule;
    const { fileURLToPath } = host?.getBuiltinModule?.('node:url') as typeof NodeUrl;
    webhooks = createRequire(import.meta.url)(fileURLToPath(new URL('./index.js', import.meta.url))) as typeof Webhooks;
  } catch (cause) {
    // A copy of this file without the rest (a bundle made without the `module` condition), or a
    // Node that does not `require()` ES modules (`--no-experimental-require-module`).
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0];
    throw new PayorchError(`payorch/webhooks could not load its code on first use (${reason}). It loads it with require() of its ES module, next to this file: bundle it with the "module" condition (esbuild, webpack, Rollup and Vite set it unless conditions are given), and run Node with require() of ES modules on`, { cause });
  }
  return webhooks;
}

export const verifyCallback: typeof Webhooks.verifyCallback = (...args) => load().verifyCallback(...args);
// Async, so that a failed load is a rejection, as every failure of this function is.
export const verifyCallbackRequest: typeof Webhooks.verifyCallbackRequest = async (...args) => load().verifyCallbackRequest(...args);
export const signCallback: typeof Webhooks.signCallback = (...args) => load().signCallback(...args);
export const createCallbackReceiver: typeof Webhooks.createCallbackReceiver = (...args) => load().createCallbackReceiver(...args);
export const resealCallbackJob: typeof Webhooks.resealCallbackJob = (...args) => load().resealCallbackJob(...args);
export const callbackKeyString: typeof Webhooks.callbackKeyString = (...args) => load().callbackKeyString(...args);
export const confirmWithCardStatus: typeof Webhooks.confirmWithCardStatus = (...args) => load().confirmWithCardStatus(...args);
export const createMemoryInbox: typeof Webhooks.createMemoryInbox = (...args) => load().createMemoryInbox(...args);
