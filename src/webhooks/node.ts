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
import { nodeBuiltin } from '../internal/node-builtin.js';

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
  // Node's built-ins taken on first use, not imported: an import of node:module costs this file's
  // import more than its own code. Each file is named by a URL of this module's, which file tracers
  // (@vercel/nft, Next.js standalone builds) follow, so that a traced deploy carries it.
  const nodeModule = nodeBuiltin('node:module') as typeof NodeModule | undefined;
  const nodeUrl = nodeBuiltin('node:url') as typeof NodeUrl | undefined;
  const failures: string[] = [];
  const attempt = (url: URL): typeof Webhooks | undefined => {
    try {
      if (nodeModule === undefined || nodeUrl === undefined) throw new Error('process.getBuiltinModule is missing');
      return nodeModule.createRequire(import.meta.url)(nodeUrl.fileURLToPath(url)) as typeof Webhooks;
    } catch (cause) {
      failures.push((cause instanceof Error ? cause.message : String(cause)).split('\n')[0] ?? '');
      return undefined;
    }
  };
  // The CommonJS build where require() of the ES module fails though Node chose this file: Jest's
  // ESM mode (its createRequire refuses ES modules), Yarn PnP on Node 22.12 to 22.14 (whose
  // require() of ES modules does not resolve their imports). Its error classes are another copy's,
  // which `instanceof` still recognises.
  webhooks = attempt(new URL('./index.js', import.meta.url)) ?? attempt(new URL('./index.cjs', import.meta.url));
  if (webhooks === undefined) {
    // A copy of this file without the rest: a bundle made without the `module` condition.
    throw new PayorchError(`payorch/webhooks could not load its code on first use (${failures.join('; ')}): it loads dist/webhooks/index.js or index.cjs, next to the file Node resolved it to. A bundle must carry them: bundle with the "module" condition, which esbuild, webpack, Rollup and Vite set unless given conditions of their own`);
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
