import { eachAtMost } from '../../internal/each-at-most.js';
import type { Logger } from '../../core/observability.js';
import { checkValue } from '../../core/option-checks.js';
import type { OptionDeclaration } from '../../core/option-checks.js';
import { readTrackingCode } from '../../core/tracking-code.js';
import { CallbackRetentionError, isPayorchError, RequestValidationError } from '../../errors/error.js';
import type { CallOutcome, ValidationIssue } from '../../errors/error.js';
import { assertNever } from '../../internal/assert-never.js';
import type { CallbackInboxOutcome } from '../inbox.js';
import { statusReadJob } from '../job.js';
import type { CallbackJob } from '../job.js';
import { readCardStatus } from '../status-read.js';
import type { CardStatusRead, CardStatusSource } from '../status-read.js';
import { NotConfirmedError } from './apply.js';
import type { Report } from './report.js';

/*
 * `receiver.reconcile`: the callback that never came, recovered from the service's status
 * (spec 4.9) and applied through the receiver's own confirm, inbox and handlers, under the key
 * its callback has. Also the one status read that `apply` repeats for a job made from a read.
 */

/** Settings of {@link CallbackReceiver.reconcile}. */
export interface ReconcileOptions {
  /**
   * The provider client whose `creditCard.getStatus` reads each status (its own retries of
   * reads, timeout and tracing apply). Any object with that method will do.
   * @example createProviderClient({ baseUrl, apiKey, secretKey })
   */
  readonly provider: CardStatusSource;
  /**
   * The provider card payments to reconcile: their tracking codes (`CC-…`), each at most once,
   * from 1 to 1000 of them. Pass the orders still waiting for their callback.
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
export const RECONCILE_OPTIONS: readonly OptionDeclaration[] = [
  { name: 'provider', rule: { type: 'object', methods: [], allowed: 'a provider client (createProviderClient), whose creditCard.getStatus reads each status' }, required: true },
  { name: 'concurrency', rule: { type: 'number', min: 1, max: 64, integer: true }, default: DEFAULT_CONCURRENCY },
];

/** What reconcile needs of the receiver. */
export interface ReconcileSettings {
  readonly account: string;
  readonly clock: () => number;
  readonly logger: Logger | undefined;
  readonly report: Report;
  /** Applies a status read now (no `enqueue`). */
  readonly applyRead: (read: CardStatusRead) => Promise<CallbackInboxOutcome | 'unhandled'>;
  /** The receiver's `enqueue`, when it defers. */
  readonly enqueue: ((job: CallbackJob) => Promise<void>) | undefined;
}

function invalid(field: string, message: string): never {
  throw new RequestValidationError(WHERE, [{ field, rule: 'invalid_option', message }]);
}

/**
 * Checks a list of provider card tracking codes: 1 to 1000, each a `CC-…` code given once.
 * @throws {RequestValidationError} naming `trackingCodes` or each bad entry, `trackingCodes[i]`
 * @internal
 */
export function checkTrackingCodes(codes: unknown): readonly string[] {
  if (!Array.isArray(codes)) invalid('trackingCodes', `must be an array of card payment tracking codes (CC-…); got ${codes === null ? 'null' : typeof codes}`);
  if (codes.length === 0 || codes.length > MAX_CODES) invalid('trackingCodes', `must hold from 1 to ${MAX_CODES} tracking codes; got ${codes.length}`);
  const issues: ValidationIssue[] = [];
  const seen = new Map<string, number>();
  codes.forEach((code: unknown, index) => {
    const field = `trackingCodes[${index}]`;
    if (typeof code !== 'string' || readTrackingCode(code)?.prefix !== 'CC') {
      issues.push({ field, rule: 'invalid_option', message: `must be a provider card payment's tracking code (CC-<segment>-<Unix seconds>, spec 2.1); got ${typeof code === 'string' ? JSON.stringify(code.slice(0, 64)) : typeof code}` });
      return;
    }
    const first = seen.get(code);
    if (first !== undefined) issues.push({ field, rule: 'invalid_option', message: `repeats trackingCodes[${first}]: give each code once` });
    else seen.set(code, index);
  });
  // Every bad code at once: a sweeper's list is fixed in one go, not one code per run.
  if (issues.length > 0) throw new RequestValidationError(WHERE, issues.slice(0, 20));
  return codes as string[];
}

/** Checks reconcile's options before anything is read. */
function checkReconcileOptions(options: unknown): { provider: CardStatusSource; codes: readonly string[]; concurrency: number } {
  if (typeof options !== 'object' || options === null) invalid('(options)', 'must be an object with provider and trackingCodes');
  const given = options as Partial<Record<keyof ReconcileOptions, unknown>>;
  for (const declaration of RECONCILE_OPTIONS) checkValue(WHERE, declaration, given[declaration.name as keyof ReconcileOptions]);
  const provider = given.provider as { readonly creditCard?: { readonly getStatus?: unknown } };
  if (typeof provider.creditCard?.getStatus !== 'function') invalid('provider', 'must be a provider client (createProviderClient), whose creditCard.getStatus reads each status');
  const codes = checkTrackingCodes(given.trackingCodes);
  return { provider: provider as CardStatusSource, codes, concurrency: (given.concurrency as number | undefined) ?? DEFAULT_CONCURRENCY };
}

/** What an applying failure is for the result: `confirm` said no, the record is too old, or a failure. */
function failure(trackingCode: string, status: string | undefined, error: unknown): ReconcileResult {
  if (error instanceof NotConfirmedError) return { trackingCode, result: 'refused', status, error };
  if (isPayorchError(error, CallbackRetentionError)) return { trackingCode, result: 'too_old', status, error };
  return { trackingCode, result: 'failed', status, error, outcome: isPayorchError(error) ? error.outcome : undefined };
}

/** Reads and applies (or queues) one code; never rejects. */
async function reconcileOne(settings: ReconcileSettings, provider: CardStatusSource, trackingCode: string): Promise<ReconcileResult> {
  const read = await readCardStatus(provider, trackingCode, settings.clock);
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
  const { enqueue } = settings;
  try {
    if (enqueue !== undefined) {
      try {
        await enqueue(statusReadJob(read.read, settings.account));
      } catch (error) {
        settings.report(error, { callback: read.read, phase: 'enqueue' });
        throw error;
      }
      return { trackingCode, result: 'queued', status };
    }
    return { trackingCode, result: await settings.applyRead(read.read), status };
  } catch (error) {
    return failure(trackingCode, status, error);
  }
}

/** Reconciles every code, `concurrency` at a time; one result per code, in the order given. */
export async function reconcile(settings: ReconcileSettings, options: ReconcileOptions): Promise<ReconcileResult[]> {
  const { provider, codes, concurrency } = checkReconcileOptions(options);
  return eachAtMost(codes, concurrency, async (trackingCode) => {
    let result: ReconcileResult;
    try {
      result = await reconcileOne(settings, provider, trackingCode);
    } catch (error) {
      // A provider that throws synchronously, an onError that throws: still one result per code.
      result = failure(trackingCode, undefined, error);
    }
    settings.logger?.debug({ trackingCode, result: result.result, status: result.status }, `payorch: reconcile ${result.result}`);
    return result;
  });
}
