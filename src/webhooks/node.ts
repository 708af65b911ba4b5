/**
 * payorch/webhooks as Node imports it (package.json `exports`, the `node` condition): the names of
 * ./index.ts, of which only the error classes and a constant are here; each function loads the
 * rest (./index.js, built) on its first call, synchronously, through `require`. Importing one
 * small file costs a receiver's cold start about a tenth of what the whole entry costs: that
 * entry's code is compiled at import even when nothing is verified yet (bench/findings.md). The
 * error classes stay here because `instanceof` needs them before any call, and the entry's code
 * imports them from here, so there is one copy of each.
 *
 * Runtimes and bundlers that could not follow the `require` (Bun, Deno, edge runtimes, any bundler
 * honouring the `module` condition) get ./index.ts itself.
 */
import type * as NodeModule from 'node:module';
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
  const host = (globalThis as { readonly process?: { readonly getBuiltinModule?: (id: string) => unknown } }).process;
  const nodeModule = host?.getBuiltinModule?.('node:module') as typeof NodeModule | undefined;
  try {
    if (nodeModule === undefined) throw new Error('process.getBuiltinModule is missing');
    webhooks = nodeModule.createRequire(import.meta.url)('./index.js') as typeof Webhooks;
  } catch (cause) {
    // Only a bundle gets here: its bundler took the `node` condition and not the `module` one, and
    // copied this file without the one it loads.
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0];
    throw new PayorchError(`payorch/webhooks could not load its code (${reason}): this bundle holds its Node-only file without the rest. Bundle with the "module" condition, which esbuild, webpack, Rollup and Vite set unless their conditions are given`, { cause });
  }
  return webhooks;
}

export const verifyCallback: typeof Webhooks.verifyCallback = (input, options) => load().verifyCallback(input, options);
export const verifyCallbackRequest: typeof Webhooks.verifyCallbackRequest = (request, options) => load().verifyCallbackRequest(request, options);
export const signCallback: typeof Webhooks.signCallback = (payload, options) => load().signCallback(payload, options);
export const createCallbackReceiver: typeof Webhooks.createCallbackReceiver = (options) => load().createCallbackReceiver(options);
export const resealCallbackJob: typeof Webhooks.resealCallbackJob = (job, keys) => load().resealCallbackJob(job, keys);
export const callbackKeyString: typeof Webhooks.callbackKeyString = (key) => load().callbackKeyString(key);
export const confirmWithCardStatus: typeof Webhooks.confirmWithCardStatus = (provider, options) => load().confirmWithCardStatus(provider, options);
export const createMemoryInbox: typeof Webhooks.createMemoryInbox = (options) => load().createMemoryInbox(options);
