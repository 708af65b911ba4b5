import type { Logger } from '../../core/observability.js';
import { keyNames, withEnvironment } from '../../core/environment.js';
import { LOG_LEVEL_OPTION, levelledLogger } from '../../core/log-level.js';
import type { LogLevel } from '../../core/log-level.js';
import { LOGGER_OPTION, METER_OPTION, TRACER_OPTION, checkNames, checkOptions, declareOptions, joinOptions } from '../../core/option-checks.js';
import type { MeterLike } from '../../core/metrics.js';
import type { TracerLike } from '../../core/tracing.js';
import { RequestValidationError } from '../../errors/error.js';
import type { PayorchError } from '../../errors/error.js';
import { LazyModule } from '../../internal/lazy-module.js';
import { MAX_CALLBACK_BODY_BYTES } from '../body.js';
import type { CallbackBody } from '../body.js';
import type { CallbackEventName } from '../events.js';
import type { CallbackHeaders } from '../headers.js';
import type { CallbackInbox, CallbackInboxContext } from '../../inboxes/inbox.js';
import { merchantIdOf } from '../key.js';
import type { CallbackJob } from '../job.js';
import type { CardStatusSource } from '../status-read.js';
import { VERIFY_OPTIONS, verifierOf } from '../verify.js';
import type { VerifyCallbackOptions } from '../verify.js';
import { answer, fetchAnswer, writeNodeAnswer } from './answer.js';
import type { CallbackReceiverAnswer } from './answer.js';
import type { CallbackConfirm } from './apply-once.js';
import type { NodeRequestLike, NodeResponseLike } from './node-handler.js';
import type { ReceivePath, receivePath } from './receive-path.js';
import { failureReport } from './report.js';
import type { CallbackErrorDetails } from './report.js';
import { handlerRoutes } from './routes.js';
import type { CallbackHandler } from './routes.js';
import type { ReceiverSettings } from './settings.js';
import { createMemoryInbox, memoryInboxFill } from '../../inboxes/memory.js';
import type { MemoryInboxContext } from '../../inboxes/memory.js';
import type { ReconcileOptions, ReconcileResult } from './reconcile.js';

/*
 * The receiver: its options, checked and resolved once into its settings (settings.ts) when it is
 * created, and its handlers. What runs when a request comes (receive-path.ts: the entry points,
 * verify, route, apply once, answer, reconcile, spans and metrics) is loaded by its first request:
 * a program that only imports payorch/webhooks, or only verifies, never compiles it.
 */

/**
 * Settings of {@link createCallbackReceiver}. Every option of `verifyCallback` (`kind`,
 * `toleranceSeconds`, `now`, …) is passed to it as it is.
 *
 * @typeParam TContext what the inbox gives the handlers
 */
export interface CallbackReceiverOptions<TContext extends CallbackInboxContext> extends Omit<VerifyCallbackOptions, 'apiKey' | 'secretKey'> {
  /**
   * The API key of the account the callbacks are for. Left out, it is read from
   * `PAYORCH_PROVIDER_API_KEY`, or `PAYORCH_DEALER_API_KEY` when `api` is `'dealer'` or `kind` is
   * `'dealerCreditCard'`, where the runtime has environment variables.
   * @example 'prov_api_b019ec636752'
   */
  readonly apiKey?: string | undefined;
  /**
   * The secret key of the same account; left out, read from `PAYORCH_PROVIDER_SECRET_KEY` or
   * `PAYORCH_DEALER_SECRET_KEY`, as `apiKey` is.
   * @example process.env.PAYORCH_PROVIDER_SECRET_KEY
   */
  readonly secretKey?: string | undefined;
  /**
   * Records which callbacks were applied, so that each is applied once.
   * @default an in-memory inbox ({@link createMemoryInbox}) with its defaults
   * @example createPostgresInbox({ pool }) // from 'payorch/postgres'
   */
  readonly inbox?: CallbackInbox<TContext> | undefined;
  /**
   * The largest body read, in bytes; a longer one is answered 413 after reading at most this
   * much. A callback is under 2 KB. A body a framework parsed before (`express.json()`) was
   * capped by that parser.
   * @default 65536
   * @example 16 * 1024
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * Told of every callback that could not be applied (the answer was 500, so the service
   * delivers it again): a handler threw, or the inbox failed. Told too of well-formed callbacks
   * refused for their keys, their clock or their kind, or signed in their body without headers
   * at a receiver not set for dealer cards (phase `verify`, the
   * `CallbackVerificationError` with its `reason`), at most once a minute per reason with
   * the `count` since the last report. Always a `PayorchError`: what your code or a driver threw
   * comes as a `CallbackHandlingError` whose `cause` it is. `details.callback` is what the
   * handlers got but for `payload.hash` (a `ReportedCallback`): no hash reaches a tracker.
   * @default failures: the logger's `error`, or `console.error` when there is no logger; refusals: the console warning alone
   * @example (error, { callback }) => Sentry.captureException(error, { extra: { trackingCode: callback?.payload.tracking_code } })
   */
  readonly onError?: ((error: PayorchError, details: CallbackErrorDetails) => void) | undefined;
  /**
   * The merchant this receiver's keys are recorded under in the inbox, so that receivers of
   * several merchants can share one inbox (a platform with several merchants, a provider and a
   * dealer account). Keep it stable: a new id forgets what was applied under the old one. No key
   * is written into a job or an inbox: the API key itself is replaced by its digest.
   * @default a digest of the `apiKey` (`payorch-ak1-` and 32 hex digits)
   * @example 'merchant-42'
   */
  readonly merchantId?: string | undefined;
  /**
   * Checks a verified callback against your own record before any handler runs (the hash covers
   * tracking_code, status and timestamp only). Return `false` to refuse it: nothing is applied or
   * recorded, the answer is 409 and `onError` is told, so that the genuine delivery still applies.
   * A throw is answered 500. It gets the inbox's context: with the PostgreSQL inbox, read your
   * record through `context.client`, in the same transaction.
   * @default none: every verified callback is applied
   * @example confirmWithCardStatus(provider)
   */
  readonly confirm?: CallbackConfirm<TContext> | undefined;
  /**
   * What to answer for a verified callback no handler is registered for (logged at warn either
   * way): `'acknowledge'` answers 200, and it is gone; `'retry'` answers 500 and tells `onError`,
   * so that the service delivers it again once a handler exists.
   * @default 'acknowledge'
   * @example 'retry'
   */
  readonly unhandled?: 'acknowledge' | 'retry' | undefined;
  /**
   * Where the receiver writes what it does: `debug` for each callback applied or acknowledged as
   * a duplicate and for each refused request (with the reason, never a key or hash), `warn` once a
   * minute for well-formed callbacks refused (each cause with its count) and for an in-memory
   * inbox nearly full or full, `error` for failures when there is no `onError`.
   * @example console
   */
  readonly logger?: Logger | undefined;
  /**
   * How much is logged, to `logger` or, without one, to the console: `'off'`, `'error'`,
   * `'warn'`, `'info'` or `'debug'`. Without it, the `PAYORCH_LOG` environment variable decides
   * where the runtime has one; a Worker has none, so set the option. Refused requests are logged
   * at `debug`, but for well-formed callbacks refused for their hash, API key, clock or kind:
   * those are warned at most once a minute, each cause with its count, at any level but `'off'`;
   * and so is an in-memory inbox that is nearly full or full.
   * @default PAYORCH_LOG, else 'warn'
   * @example 'debug'
   */
  readonly logLevel?: LogLevel | undefined;
  /**
   * An OpenTelemetry `Tracer`: each received callback becomes one CONSUMER span named
   * `callback.receive`, active while the handlers run, with the callback's kind, status and
   * tracking code once verified, the result (`applied`, `duplicate`, `queued`, `unhandled`, `refused` and why, `failed`)
   * and status ERROR for every answer but 200. See docs/observability.md.
   * @default no spans
   * @example trace.getTracer('my-app')
   */
  readonly tracer?: TracerLike | undefined;
  /**
   * An OpenTelemetry `Meter`: the receiver counts each callback in `payorch.callbacks` with
   * `payorch.outcome` (`applied`, `duplicate`, `queued`, `unhandled`, `refused`, `failed`), `payorch.reason`
   * (for refusals and failures: `invalid_signature`, `timestamp_out_of_tolerance`, `not_applied`,
   * …) and `payorch.kind` (once verified), and times each verified one in
   * `payorch.callback.duration` (seconds). With the in-memory inbox, `payorch.inbox.key.count`
   * and `payorch.inbox.key.limit` read how full it is. No tracking code, body field or key
   * becomes an attribute. See docs/observability.md.
   * @default no metrics
   * @example metrics.getMeter('my-app')
   */
  readonly meter?: MeterLike | undefined;
  /**
   * Defers applying to your own queue engine. Given, a callback that verifies becomes a
   * {@link CallbackJob}, sealed with the secret key, handed to `enqueue`, and is answered 200 as soon as `enqueue` resolves:
   * `confirm` and the handlers do not run then, `receiver.apply(job)` runs them from your
   * worker, with the engine's retries and dead letters. If `enqueue` throws, the answer is 500,
   * nothing is recorded and `onError` is told (phase `enqueue`), so that the service delivers it
   * again. A forged, stale or malformed callback never reaches it. Resolve only once the job is
   * stored durably: the 200 tells the service it may forget the callback.
   * @default none: callbacks are applied before the answer
   * @example async (job) => { await boss.send('payorch-callbacks', job, { retryLimit: 10 }); }
   */
  readonly enqueue?: ((job: CallbackJob) => Promise<void>) | undefined;
}

/**
 * A callback receiver: register handlers with {@link CallbackReceiver.on}, then serve it with
 * {@link CallbackReceiver.handle} (Fetch API) or {@link CallbackReceiver.nodeHandler} (node:http,
 * Express). Each callback is applied once per merchant + tracking_code + status; a redelivery is answered
 * 200 without running the handlers again.
 */
export interface CallbackReceiver<TContext> {
  /**
   * Runs `handler` for every callback of `event`: `'deposit.completed'`, `'withdrawal'` (every
   * status of a kind, also statuses the SDK does not know yet) or `'*'`. The handlers of one
   * callback run one after the other: `'<kind>.<status>'` ones first, then `'<kind>'`, then `'*'`,
   * each in the order they were added. If one throws, the callback is not applied (nothing is
   * recorded, the answer is 500). With a transactional inbox (PostgreSQL) the redelivery runs
   * them all again; with the in-memory inbox, which cannot roll a handler back, it runs only the
   * handlers that did not complete.
   *
   * @returns the receiver, to chain calls
   * @throws {RequestValidationError} (rule `invalid_argument`) for an event name that is not one of the above, or a handler that is not a function
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver } from 'payorch';
   * import type { WithdrawalCallback } from 'payorch';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * // Your order row, saved when startWithdrawal answered: the hash covers neither user nor amount.
   * declare function orderOf(trackingCode: string): Promise<{ readonly userId: string; readonly amount: number }>;
   * declare function refund(userId: string, amount: number): Promise<void>;
   * declare function settle(withdrawal: WithdrawalCallback): Promise<void>;
   * receiver.on('withdrawal.rejected', async (callback) => {
   *   const order = await orderOf(callback.payload.tracking_code);
   *   await refund(order.userId, order.amount);
   * });
   * receiver.on('withdrawal', async (callback) => settle(callback.payload));
   * ```
   */
  on<E extends CallbackEventName>(event: E, handler: CallbackHandler<E, TContext>): CallbackReceiver<TContext>;
  /**
   * Answers a callback given as a Fetch API `Request`: Hono, Next.js route handlers, Cloudflare
   * Workers, Bun, Deno. A plain function: pass it detached. Never rejects: a request whose body
   * was already read is answered 500 and `onError` is told (phase `request`, a
   * {@link RequestValidationError}), so that the service delivers the callback again.
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver } from 'payorch';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * export const POST = (request: Request) => receiver.handle(request);
   * ```
   */
  readonly handle: (request: Request) => Promise<Response>;
  /**
   * Answers a callback on node:http, Express 4 or 5 (also behind `express.json()`, `express.text()`
   * or `express.urlencoded()`: a body a parser left unread is read, whatever its Content-Type) or
   * any framework that gives Node's request and response. A plain function: pass it detached. Never rejects.
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver } from 'payorch';
   * import { createServer } from 'node:http';
   * import express from 'express';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * const app = express();
   * app.post('/webhooks/payorch', receiver.nodeHandler);
   * createServer(receiver.nodeHandler).listen(3000);
   * ```
   */
  readonly nodeHandler: (request: NodeRequestLike, response: NodeResponseLike) => Promise<void>;
  /**
   * Answers a callback whose headers and body you already have (Fastify's parsed body, a queue
   * message): returns the answer to send instead of sending it. Never rejects.
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver } from 'payorch';
   * import type { FastifyReply, FastifyRequest } from 'fastify';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * declare const request: FastifyRequest<{ Body: string }>; // with a string parser for every content type
   * declare const reply: FastifyReply;
   * const answer = await receiver.receive({ headers: request.headers, body: request.body });
   * reply.code(answer.status).headers(answer.headers).send(answer.body);
   * ```
   */
  readonly receive: (input: { readonly headers: CallbackHeaders; readonly body: CallbackBody }) => Promise<CallbackReceiverAnswer>;
  /**
   * Applies a job that `enqueue` was given, from your queue worker, after any round-trip through
   * JSON. It first checks the job's seal with this receiver's secret key (`previousSecretKey`'s
   * until its `until`), then the job as the receiver checked the callback: the hash with this
   * receiver's keys and the age limit, both at the job's receipt time, this receiver's `merchantId`,
   * the kind and event told again from the signed fields. Then it runs `confirm`, the inbox and
   * the handlers, once per merchant + tracking_code + status, as a received callback. A plain
   * function: pass it detached.
   *
   * A job made by {@link CallbackReceiver.reconcile} (`source: 'status'`) holds no signature: it
   * is applied from a fresh status read through `options.provider`, whatever the job says.
   *
   * @returns resolves when the callback was applied now or before (or no handler takes it, with `unhandled: 'acknowledge'`)
   * @throws {CallbackJobError} for a job changed or written in the queue without the secret key (`invalid_signature`), one sealed with the previous key past its `until` (`seal_key_expired`: re-seal it with `resealCallbackJob`), another merchant’s job, or one too old at its receipt time: nothing applied, retrying cannot help; one sealed with a key this receiver does not hold (`seal_key_unknown`) or received in its future: `retryable`
   * @throws {RequestValidationError} (option `provider`) for a job made by `reconcile` when no provider client is given: nothing read or applied
   * @throws the error of `confirm` or a handler, or `confirm`'s refusal, or the inbox's failure: let the engine retry it
   *
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver, ProviderClient } from 'payorch';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * import type { PgBoss } from 'pg-boss';
   * import type { CallbackJob } from 'payorch';
   * declare const provider: ProviderClient;
   * declare const boss: PgBoss;
   * // Sent as JSON text, send('my-callbacks', { job: JSON.stringify(job) }): jsonb refuses some names.
   * await boss.work<{ job: string }>('my-callbacks', async ([job]) => {
   *   if (job !== undefined) await receiver.apply(JSON.parse(job.data.job) as CallbackJob, { provider });
   * });
   * ```
   */
  readonly apply: (job: CallbackJob, options?: CallbackApplyOptions) => Promise<void>;
  /**
   * Recovers provider card payments whose callback never came (the receiver was down until the
   * service stopped retrying, every signature failed after a key rotation): reads each status
   * with `provider.creditCard.getStatus` (spec 4.9), `concurrency` at a time, and applies each
   * end status through this receiver's `confirm`, inbox and handlers, under the key its callback
   * has (this merchant, the tracking code, the status). A callback that arrives later is then a
   * duplicate, and a status applied before (by its callback or an earlier reconcile) is not
   * applied again, across instances sharing the inbox. Handlers tell a read from a callback by
   * `callback.source === 'status'`: it carries only the status answer's fields (spec 2.6).
   *
   * A payment read as `refunded` was paid first: its `success` is applied, then `refunded`, in
   * that order, each under its own key. With `enqueue`, each end status read becomes a job
   * (result `queued`) that `receiver.apply(job, { provider })` applies after reading the status again.
   *
   * @returns one result per code, in the order given; it never rejects for one code's failure
   * @throws {RequestValidationError} before anything is read, for an empty or overlong list, a code that is not a card payment's or is given twice, a bad `concurrency` or no provider
   * @example
   * ```ts
   * import type { CallbackInboxContext, CallbackReceiver, ProviderClient } from 'payorch';
   * declare const receiver: CallbackReceiver<CallbackInboxContext>;
   * declare const provider: ProviderClient;
   * declare function ordersAwaitingCallback(): Promise<string[]>;
   * const results = await receiver.reconcile({ provider, trackingCodes: await ordersAwaitingCallback() });
   * for (const { trackingCode, result, error } of results) if (result === 'failed') console.error(trackingCode, error);
   * ```
   */
  readonly reconcile: (options: ReconcileOptions) => Promise<ReconcileResult[]>;
}

/** Settings of {@link CallbackReceiver.apply}. */
export interface CallbackApplyOptions {
  /**
   * The provider client that reads again the status of a job made by `reconcile`; needed only
   * for those jobs.
   * @example new ProviderClient({ baseUrl, apiKey, secretKey })
   */
  readonly provider?: CardStatusSource | undefined;
}

const WHERE = 'createCallbackReceiver';

// `receiver.apply`'s options: names only, the provider client checked where a job needs it.
const APPLY_OPTIONS = declareOptions<CallbackApplyOptions>()([{ name: 'provider', rule: { type: 'object', methods: [], allowed: 'a ProviderClient' } }]);

/** The receiver's own options, after verifyCallback's: one set of declarations for both. @internal */
export const RECEIVER_OPTIONS = declareOptions<CallbackReceiverOptions<CallbackInboxContext>>()(joinOptions(VERIFY_OPTIONS, [
  { name: 'maxBodyBytes', rule: { type: 'number', min: 1, max: MAX_CALLBACK_BODY_BYTES, integer: true }, default: MAX_CALLBACK_BODY_BYTES, note: 'verifyCallback refuses more' },
  { name: 'onError', rule: { type: 'function' } },
  { name: 'confirm', rule: { type: 'function' } },
  { name: 'unhandled', rule: { type: 'oneOf', values: ['acknowledge', 'retry'] }, default: 'acknowledge' },
  { name: 'merchantId', rule: { type: 'text', maxLength: 200 } },
  TRACER_OPTION,
  METER_OPTION,
  LOG_LEVEL_OPTION,
  LOGGER_OPTION,
  { name: 'inbox', rule: { type: 'object', methods: ['process'], allowed: 'an object with a process(key, apply) method (CallbackInbox)' } },
  { name: 'enqueue', rule: { type: 'function' } },
]), { previousSecretKey: 'checked with its parts and the secretKey it must differ from by verifierOf, and with merchantId below' });

/**
 * Creates a callback receiver: it reads the body (at most `maxBodyBytes`), verifies it with
 * `verifyCallback`, runs `confirm` and then the handlers registered for its kind and status once
 * per merchant + tracking_code + status (the `inbox` remembers), and answers as spec 6.1 expects:
 * 200 `{"success":true}` when applied or already applied, 401 when not genuine, 400 when
 * malformed before its hash is trusted, 409 when `confirm` refused it, 413 when too large, 422
 * when its record is older than the inbox's retention (`record_too_old`), 405
 * for anything but POST, and 500 when a genuine body cannot be typed, or a handler, `confirm` or
 * the inbox failed, so that the service delivers it again. Nothing a request does makes it throw.
 * With `enqueue`, a verified callback is answered 200 once it is on your queue (500 `not_queued`
 * when `enqueue` throws), and your worker applies it with {@link CallbackReceiver.apply}. What
 * runs per request is loaded by the first request, `apply` or `reconcile`; should that fail (a
 * file missing from the install), it is answered 500 (`apply` and `reconcile` reject) and
 * `onError` is told.
 *
 * @throws {RequestValidationError} at once for a missing key, an impossible option or one it does not have (`accountName` names `merchantId`, its new name), naming it
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createCallbackReceiver } from 'payorch';
 *
 * // Your order row, saved when startDeposit answered: the hash covers neither user nor amount.
 * declare function orderOf(trackingCode: string): Promise<{ readonly userId: string; readonly maxAmount: number } | undefined>;
 * declare function creditBalance(userId: string, amount: number): Promise<void>;
 * // The keys are read from PAYORCH_PROVIDER_API_KEY and PAYORCH_PROVIDER_SECRET_KEY.
 * const receiver = createCallbackReceiver({
 *   kind: 'deposit',
 *   confirm: async (callback) => {
 *     const order = await orderOf(callback.payload.tracking_code);
 *     return callback.kind === 'deposit' && order !== undefined && order.userId === callback.payload.user_id && callback.payload.amount <= order.maxAmount;
 *   },
 * });
 * receiver.on('deposit.completed', async (callback) => {
 *   const order = await orderOf(callback.payload.tracking_code);
 *   if (order === undefined) throw new Error('confirm found this order');
 *   await creditBalance(order.userId, callback.payload.amount); // the user of your order row
 * });
 * createServer(receiver.nodeHandler).listen(3000);
 * ```
 */
export function createCallbackReceiver<TContext extends CallbackInboxContext = MemoryInboxContext>(options: CallbackReceiverOptions<TContext> = {}): CallbackReceiver<TContext> {
  const settings = receiverSettings(options);
  // Built on the first request from the receive path's module; each request after it runs it at once.
  let path: ReceivePath | undefined;
  const started = (): Promise<ReceivePath> => RECEIVE_PATH.load().then((loaded) => (path ??= loaded.receivePath(settings)));
  // Not loaded: told as any failure, and answered 500 (the service delivers it again) or rejected.
  const tell = (error: unknown): void => {
    settings.report(error, { callback: undefined, phase: 'request' });
  };
  const notLoaded = (error: unknown): CallbackReceiverAnswer => {
    tell(error);
    return answer(500, 'not_applied');
  };
  const rejected = (error: unknown): never => {
    tell(error);
    throw error;
  };
  // At once once the receive path is there; after its import on the first use, or `failed`.
  const onPath = <T>(use: (ready: ReceivePath) => Promise<T>, failed: (error: unknown) => T): Promise<T> => (path === undefined ? started().then(use, failed) : use(path));
  const receiver: CallbackReceiver<TContext> = {
    on(event, handler) {
      settings.routes.on(event, handler);
      return receiver;
    },
    receive: (input) => onPath((ready) => ready.receive(input), notLoaded),
    handle: (request) => onPath((ready) => ready.handle(request), (error) => fetchAnswer(notLoaded(error))),
    nodeHandler: (request, response) =>
      onPath(
        (ready) => ready.nodeHandler(request, response),
        (error) => {
          writeNodeAnswer(response, notLoaded(error));
        },
      ),
    apply: async (job, applyOptions) => {
      checkNames('receiver.apply', applyOptions, APPLY_OPTIONS);
      await onPath((ready) => ready.apply(job, applyOptions?.provider), rejected);
    },
    reconcile: (reconcileOptions) => onPath((ready) => ready.reconcile(reconcileOptions), rejected),
  };
  return receiver;
}

/**
 * The receiver's options, checked and resolved once, in the order trust is established (the keys,
 * then who is told what, then where callbacks go): each delivery does only its own work. Keys left
 * out come from the environment: the dealer's for the Dealer API or its card callbacks.
 */
function receiverSettings<TContext extends CallbackInboxContext>(options: CallbackReceiverOptions<TContext>): ReceiverSettings<TContext> {
  const told = options as { readonly api?: unknown; readonly kind?: unknown } | null;
  const dealer = told?.api === 'dealer' || told?.kind === 'dealerCreditCard';
  const resolved = withEnvironment(WHERE, options, keyNames(dealer ? 'dealer' : 'provider'));
  checkOptions(WHERE, resolved, RECEIVER_OPTIONS);
  const verifier = verifierOf(WHERE, resolved);
  if (resolved.previousSecretKey !== undefined && resolved.merchantId === undefined) {
    // A rotation needs a stable merchant id: were the inbox's merchant a key, callbacks applied
    // under the old one would apply again under the new one.
    throw new RequestValidationError(WHERE, [
      {
        field: 'merchantId',
        rule: 'invalid_option',
        // The digest of the API key before the rotation, which a receiver without merchantId
        // recorded under: not a key, and what keeps its keys through the rolling deploy.
        message: `is required with previousSecretKey, so that the inbox never records callbacks under a key: give '${merchantIdOf(resolved.previousSecretKey.apiKey ?? resolved.apiKey, undefined)}', the digest a receiver without it records under, deployed alone before the rotation (docs/rotating-keys.md)`,
      },
    ]);
  }
  const inbox = resolved.inbox ?? (createMemoryInbox() as unknown as CallbackInbox<TContext>);
  return {
    verifier,
    merchantId: merchantIdOf(resolved.apiKey, resolved.merchantId),
    inbox,
    // The in-memory inbox refuses once full: the receiver warns before, and meters its fill.
    fill: memoryInboxFill(inbox),
    inMemoryInbox: resolved.inbox === undefined,
    confirm: resolved.confirm,
    retryUnhandled: resolved.unhandled === 'retry',
    enqueue: resolved.enqueue,
    logger: levelledLogger(resolved.logger, resolved.logLevel),
    onError: resolved.onError,
    // Without onError, failures go to the logger as given (never filtered by level), else to console.error.
    report: failureReport(resolved.onError, resolved.logger),
    routes: handlerRoutes<TContext>(),
    tracer: resolved.tracer,
    meter: resolved.meter,
    maxBodyBytes: resolved.maxBodyBytes ?? MAX_CALLBACK_BODY_BYTES,
  };
}

// The receive path's module, imported once for every receiver of the process; a failed import is
// tried again by the next request. Its failure is not a call's: what it says of money is unknown.
const RECEIVE_PATH = /* @__PURE__ */ new LazyModule<{ readonly receivePath: typeof receivePath }>("its receive path (a file of the package, imported on a receiver's first request)", () => import('./receive-path.js'), 'unknown');
