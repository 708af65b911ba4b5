import type { SignedCallback } from '../callbacks/sign.js';
import type { CallbackKind } from '../callbacks/kinds.js';
import type { CallbackRetryOptions } from './options.js';

/** One HTTP POST of a callback, as `sandbox.deliveries()` lists it. */
export interface DeliveryAttempt {
  readonly callback: CallbackKind;
  /** Tracking code of the record the callback reports. */
  readonly trackingCode: string;
  /** The status the callback carries. */
  readonly status: string;
  readonly url: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly at: Date;
  /** The receiver's HTTP status; undefined when no answer came (connection failed, timeout). */
  readonly httpStatus: number | undefined;
  /** Why no answer came, when none did. */
  readonly error: string | undefined;
  /** True only for HTTP 200, the one answer spec 6.1 counts as acknowledged. */
  readonly delivered: boolean;
}

/** The attempts of one callback and whether one of them was acknowledged. */
export interface DeliveryResult {
  readonly url: string;
  readonly delivered: boolean;
  readonly attempts: readonly DeliveryAttempt[];
}

export interface Callback {
  readonly kind: CallbackKind;
  readonly trackingCode: string;
  readonly status: string;
  readonly url: string;
  /** Signs the callback; called for each attempt, so that its timestamp is current. */
  readonly sign: () => SignedCallback;
}

export const DEFAULT_RETRY: Required<{ [K in keyof CallbackRetryOptions]: NonNullable<CallbackRetryOptions[K]> }> = {
  attempts: 5,
  backoffMs: 1000,
  timeoutMs: 10_000,
};

/**
 * POSTs callbacks with bounded retries: any answer but HTTP 200 (spec 6.1), a connection failure
 * or a timeout is a failed attempt, retried after `backoffMs * 2^(n - 1)` until `attempts` are spent.
 */
export class Deliverer {
  readonly #retry: typeof DEFAULT_RETRY;
  readonly #log: DeliveryAttempt[] = [];
  readonly #inFlight = new Set<Promise<DeliveryResult>>();

  constructor(retry: CallbackRetryOptions | undefined) {
    this.#retry = {
      attempts: Math.max(1, retry?.attempts ?? DEFAULT_RETRY.attempts),
      backoffMs: retry?.backoffMs ?? DEFAULT_RETRY.backoffMs,
      timeoutMs: retry?.timeoutMs ?? DEFAULT_RETRY.timeoutMs,
    };
  }

  /** Delivers one callback; resolves when it was acknowledged or its attempts ran out. Never rejects. */
  deliver(callback: Callback): Promise<DeliveryResult> {
    const delivery = this.#run(callback);
    this.#inFlight.add(delivery);
    void delivery.finally(() => this.#inFlight.delete(delivery));
    return delivery;
  }

  /** Every attempt so far, oldest first. */
  attempts(): DeliveryAttempt[] {
    return [...this.#log];
  }

  /** Resolves when no delivery is under way, including those started while waiting. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  async #run(callback: Callback): Promise<DeliveryResult> {
    const attempts: DeliveryAttempt[] = [];
    for (let attempt = 1; attempt <= this.#retry.attempts; attempt++) {
      if (attempt > 1) await sleep(this.#retry.backoffMs * 2 ** (attempt - 2));
      const outcome = await this.#post(callback);
      const record: DeliveryAttempt = {
        callback: callback.kind,
        trackingCode: callback.trackingCode,
        status: callback.status,
        url: callback.url,
        attempt,
        at: new Date(),
        ...outcome,
        delivered: outcome.httpStatus === 200,
      };
      attempts.push(record);
      this.#log.push(record);
      if (record.delivered) break;
    }
    return { url: callback.url, delivered: attempts.some((attempt) => attempt.delivered), attempts };
  }

  async #post(callback: Callback): Promise<{ httpStatus: number | undefined; error: string | undefined }> {
    const { headers, body } = callback.sign();
    try {
      // Read at call time: msw and other test doubles patch globalThis.fetch after import.
      const answer = await globalThis.fetch(callback.url, {
        method: 'POST',
        headers,
        body,
        // A redirect is not an acknowledgement, and following one would resend the body elsewhere.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#retry.timeoutMs),
      });
      // Read to the end (within the timeout) so the connection is released for reuse.
      await answer.arrayBuffer();
      return { httpStatus: answer.status, error: undefined };
    } catch (error) {
      return { httpStatus: undefined, error: describe(error) };
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
