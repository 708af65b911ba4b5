import { eachAtMost } from '../../internal/each-at-most.js';
import type { LevelledLogger } from '../../core/log-level.js';
import { checkList, checkValue, declareOptions } from '../../core/option-checks.js';
import { readTrackingCode } from '../../core/tracking-code.js';
import { CallbackJobError, CallbackRetentionError, isPayorchError, NotConfirmedError, RequestValidationError } from '../../errors/error.js';
import type { CallOutcome } from '../../errors/error.js';
import { assertNever } from '../../internal/assert-never.js';
import type { CallbackInboxOutcome } from '../../inboxes/inbox.js';
import { checkJobSeal } from '../job.js';
import type { CallbackJob, StatusReadJob } from '../job.js';
import type { Verifier } from '../verify.js';
import { readCardStatus } from '../status-read.js';
import type { CardStatusRead, CardStatusSource, StatusReadResult } from '../status-read.js';
import type { CallbackApplyTrace } from './callback-spans.js';
import type { Report } from './report.js';

/*
 * `receiver.reconcile`: the callback that never came, recovered from the service's status
 * (spec 4.9) and applied through the receiver's own confirm, inbox and handlers, under the key
 * its callback has. Also `receiver.apply` of a job made from a read, which reads the status again.
 */

/** Settings of {@link CallbackReceiver.reconcile}. */
export interface ReconcileOptions {
  /**
   * The provider client whose `creditCard.getStatus` reads each status (its own retries of
   * reads, timeout and tracing apply). Any object with that method will do.
   * @example new ProviderClient({ baseUrl, apiKey, secretKey })
   */
  readonly provider: CardStatusSource;
  /**
   * The provider card payments to reconcile: their tracking codes (`CC-…`), each at most once,
   * up to 1000 of them. Pass the orders still waiting for their callback; an empty list (a quiet
   * tick) resolves `[]` without a request.
   * @example ['CC-p4Lm8-1763812100']
   */
  readonly trackingCodes: readonly string[];
  /**
   * How many status reads run at once.
   * @default 4
   * @example 8
   */
  readonly concurrency?: number | undefined;
}

/**
 * What `reconcile` did with one tracking code:
 * - `applied`: an end status was applied now (a refunded payment: its `success` or `refunded`);
 * - `duplicate`: every end status it implies was applied before (by its callback or an earlier reconcile);
 * - `queued`: with `enqueue`, handed to your queue as a job; `receiver.apply(job, { provider })` applies it;
 * - `pending`: not ended yet (`pending`, or a status payorch does not know as an end); nothing done;
 * - `not_found`: the service says it knows no such card payment;
 * - `refused`: `confirm` returned false; nothing applied or recorded;
 * - `unhandled`: no handler takes it (`unhandled: 'acknowledge'`); nothing applied or recorded;
 * - `too_old`: its record is behind the inbox's retention horizon: reconcile it by hand;
 * - `failed`: the read, `confirm`, a handler, the inbox or `enqueue` failed: see `error`; run it again later.
 */
export type ReconcileResultKind = 'applied' | 'duplicate' | 'queued' | 'pending' | 'not_found' | 'refused' | 'unhandled' | 'too_old' | 'failed';

/** One tracking code's result of {@link CallbackReceiver.reconcile}. */
export interface ReconcileResult {
  readonly trackingCode: string;
  readonly result: ReconcileResultKind;
  /** The status the service answered; absent when it could not be read. */
  readonly status?: string | undefined;
  /** Why, for `failed`, `refused` and `too_old`: the error thrown (a read's `APIError`, `TimeoutError`, a handler's error, …). */
  readonly error?: unknown;
  /** For `failed`: the error's `outcome` when it is payorch's. A status read moves no money, whatever it says. */
  readonly outcome?: CallOutcome | undefined;
}

const WHERE = 'receiver.reconcile';
const MAX_CODES = 1000;
const DEFAULT_CONCURRENCY = 4;
/** @internal */
export const RECONCILE_OPTIONS = declareOptions<ReconcileOptions>()(
  [
    { name: 'provider', rule: { type: 'object', methods: [], allowed: 'a provider client (new ProviderClient({ ... })), whose creditCard.getStatus reads each status' }, required: true },
    { name: 'concurrency', rule: { type: 'number', min: 1, max: 64, integer: true }, default: DEFAULT_CONCURRENCY },
  ],
  { trackingCodes: 'a list, checked code by code by checkTrackingCodes' },
);

/** What reconcile needs of the receiver. */
export interface ReconcileSettings {
  /** The merchant keys are recorded under (`merchantId`, else a digest of the API key). */
  readonly merchantId: string;
  /** The receiver's verifier: its clock, and the keys that seal and check jobs. */
  readonly verifier: Verifier;
  readonly logger: LevelledLogger;
  readonly report: Report;
  /** Applies a status read now (no `enqueue`). */
  readonly applyRead: (read: CardStatusRead) => Promise<CallbackInboxOutcome | 'unhandled'>;
  /** The receiver's `enqueue`, when it defers. */
  readonly enqueue: ((job: CallbackJob) => Promise<void>) | undefined;
  /** True when the receiver keeps its keys in the default in-memory inbox: reconcile then warns once. */
  readonly inMemoryInbox: boolean;
}

function invalid(field: string, message: string): never {
  throw new RequestValidationError(WHERE, [{ field, rule: 'invalid_option', message }]);
}

/**
 * Checks a list of provider card tracking codes: up to 1000, each a `CC-…` code given once.
 * @throws {RequestValidationError} naming `trackingCodes` or each bad entry, `trackingCodes[i]`
 * @internal
 */
export function checkTrackingCodes(codes: unknown): readonly string[] {
  return checkList(WHERE, 'trackingCodes', codes, {
    min: 0,
    max: MAX_CODES,
    items: 'card payment tracking codes (CC-…)',
    item: 'code',
    problem: (code) =>
      typeof code === 'string' && readTrackingCode(code)?.prefix === 'CC'
        ? undefined
        : `must be a provider card payment's tracking code (CC-<segment>-<Unix seconds>, spec 2.1); got ${typeof code === 'string' ? JSON.stringify(code.slice(0, 64)) : typeof code}`,
  });
}

/** Checks reconcile's options before anything is read. */
function checkReconcileOptions(options: unknown): { provider: CardStatusSource; codes: readonly string[]; concurrency: number } {
  if (typeof options !== 'object' || options === null) invalid('(options)', 'must be an object with provider and trackingCodes');
  const given = options as Partial<Record<keyof ReconcileOptions, unknown>>;
  for (const declaration of RECONCILE_OPTIONS) checkValue(WHERE, declaration, given[declaration.name]);
  const provider = given.provider as { readonly creditCard?: { readonly getStatus?: unknown } };
  if (typeof provider.creditCard?.getStatus !== 'function') invalid('provider', 'must be a provider client (new ProviderClient({ ... })), whose creditCard.getStatus reads each status');
  const codes = checkTrackingCodes(given.trackingCodes);
  return { provider: provider as CardStatusSource, codes, concurrency: (given.concurrency as number | undefined) ?? DEFAULT_CONCURRENCY };
}

/** What an applying failure is for the result: `confirm` said no, the record is too old, or a failure. */
function failure(trackingCode: string, status: string | undefined, error: unknown): ReconcileResult {
  if (error instanceof NotConfirmedError) return { trackingCode, result: 'refused', status, error };
  if (isPayorchError(error, CallbackRetentionError)) return { trackingCode, result: 'too_old', status, error };
  return { trackingCode, result: 'failed', status, error, outcome: isPayorchError(error) ? error.outcome : undefined };
}

/** Reconciling of one receiver: `receiver.reconcile`, and `receiver.apply` of the jobs it queues. */
export interface Reconciling {
  reconcile(options: ReconcileOptions): Promise<ReconcileResult[]>;
  /** Applies a job made by `reconcile` from a fresh status read through `provider`. */
  applyJob(job: Readonly<Record<string, unknown>>, trace: CallbackApplyTrace, provider: CardStatusSource | undefined): Promise<void>;
}

/** Reconciling over the receiver's merchant id, clock, applying and `enqueue`. */
export function reconciling(settings: ReconcileSettings): Reconciling {
  const { merchantId, verifier, logger, report, applyRead, enqueue, inMemoryInbox } = settings;
  const clock = verifier.now;
  let warnedOfMemory = false;

  // This merchant's jobs of a status read, sealed: a request to read it again, not a payment (it carries no signature).
  const jobOf = (read: CardStatusRead): StatusReadJob =>
    verifier.seals.seal({ version: 2, source: 'status', merchantId, kind: 'creditCard', event: `creditCard.${read.readStatus}`, payload: read.payload, receivedAt: read.readAt } as const);
  // Nothing of a job's payload is trusted but what its seal and a fresh read vouch for: that it is
  // this merchant's and names a card payment, whose tracking code is read again. Throws
  // CallbackJobError naming the field.
  function codeOf(job: Readonly<Record<string, unknown>>): string {
    checkJobSeal(job, { verifier, merchantId, nowMs: clock() });
    if (job['kind'] !== 'creditCard') throw new CallbackJobError('kind_mismatch', 'kind', 'a status read job is of a provider card payment (kind creditCard)');
    const payload = job['payload'];
    const code = typeof payload === 'object' && payload !== null ? (payload as Readonly<Record<string, unknown>>)['tracking_code'] : undefined;
    if (typeof code !== 'string' || readTrackingCode(code)?.prefix !== 'CC') {
      throw new CallbackJobError('invalid_tracking_code', 'payload', 'payload.tracking_code is not a card payment’s tracking code (CC-…-<Unix seconds>)');
    }
    return code;
  }
  // The one status read of both: each code reconciled, and each job of a read applied again.
  const readStatus = (provider: CardStatusSource, trackingCode: string): Promise<StatusReadResult> => readCardStatus(provider, trackingCode, clock);

  /** Reads and applies (or queues) one code; never rejects. */
  async function reconcileOne(provider: CardStatusSource, trackingCode: string): Promise<ReconcileResult> {
    const read = await readStatus(provider, trackingCode);
    switch (read.result) {
      case 'pending':
        return { trackingCode, result: 'pending', status: read.status };
      case 'not_found':
        return { trackingCode, result: 'not_found' };
      case 'failed':
        return failure(trackingCode, read.status, read.error);
      case 'read':
        break;
      default:
        return assertNever(read);
    }
    const status = read.read.readStatus;
    try {
      if (enqueue !== undefined) {
        try {
          await enqueue(jobOf(read.read));
        } catch (error) {
          report(error, { callback: read.read, phase: 'enqueue' });
          throw error;
        }
        return { trackingCode, result: 'queued', status };
      }
      return { trackingCode, result: await applyRead(read.read), status };
    } catch (error) {
      return failure(trackingCode, status, error);
    }
  }

  // A job made by reconcile holds no service signature: nothing in it is trusted but its sealed
  // merchant and code to read again, and what is applied is what the service answers now.
  async function applyJob(job: Readonly<Record<string, unknown>>, trace: CallbackApplyTrace, provider: CardStatusSource | undefined): Promise<void> {
    let trackingCode: string;
    try {
      trackingCode = codeOf(job);
    } catch (error) {
      if (error instanceof CallbackJobError) logger.warn({ reason: error.reason, field: error.field }, error.message);
      throw error;
    }
    // Checked at run time: a worker's options come from code without types too.
    const given = provider as { readonly creditCard?: { readonly getStatus?: unknown } } | undefined;
    if (provider === undefined || typeof given?.creditCard?.getStatus !== 'function') {
      throw new RequestValidationError('receiver.apply', [
        { field: 'provider', rule: 'invalid_option', message: 'a job made by reconcile is applied from a fresh status read; pass the provider client: receiver.apply(job, { provider })' },
      ]);
    }
    const read = await readStatus(provider, trackingCode);
    switch (read.result) {
      case 'read':
        trace.verified(read.read);
        trace.processed(await applyRead(read.read));
        return;
      case 'pending':
        throw new CallbackJobError('invalid_status', 'payload', `the service reads ${trackingCode} as ${read.status}, not an end status: nothing applied`);
      case 'not_found':
        throw new CallbackJobError('invalid_tracking_code', 'payload', `the service does not know ${trackingCode}: nothing applied`);
      case 'failed':
        throw read.error;
      default:
        return assertNever(read);
    }
  }

  /** Reconciles every code, `concurrency` at a time; one result per code, in the order given. */
  async function reconcile(options: ReconcileOptions): Promise<ReconcileResult[]> {
    const { provider, codes, concurrency } = checkReconcileOptions(options);
    if (inMemoryInbox && !warnedOfMemory) {
      warnedOfMemory = true;
      // A schedule is usually its own process (a cron job): a late callback its web receiver
      // applied is not in this memory, and would be applied again here.
      logger.warn(
        { inbox: 'memory' },
        'payorch: receiver.reconcile runs on a receiver that keeps applied callbacks in memory (the default inbox): a callback received by another process, such as your web receiver, is not known here and would be applied again. Give this receiver the durable inbox your web receiver uses (PostgreSQL, D1 or Durable Object).',
      );
    }
    return eachAtMost(codes, concurrency, async (trackingCode) => {
      let result: ReconcileResult;
      try {
        result = await reconcileOne(provider, trackingCode);
      } catch (error) {
        // A provider that throws synchronously, an onError that throws: still one result per code.
        result = failure(trackingCode, undefined, error);
      }
      if (logger.enabled('debug')) logger.debug({ trackingCode, result: result.result, status: result.status }, `payorch: reconcile ${result.result}`);
      return result;
    });
  }

  return { reconcile, applyJob };
}
