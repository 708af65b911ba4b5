import type { SignedCallback } from '../../webhooks/sign.js';
import type { CallbackKind } from '../../webhooks/kinds.js';
import { SANDBOX_DEFAULTS } from './options.js';
import type { CallbackRetryOptions } from './options.js';

/** One HTTP POST of a callback, as `sandbox.deliveries()` lists it. */
export interface DeliveryAttempt {
  /** The delivery this attempt belongs to, for `redeliver()` and `POST /__sandbox/deliveries/{id}/redeliver`. */
  readonly deliveryId: string;
  readonly callback: CallbackKind;
  /** Tracking code of the record the callback reports. */
  readonly trackingCode: string;
  /** The status the callback carries. */
  readonly status: string;
  readonly url: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  readonly at: Date;
  /** The time the attempt's signature carries (its X-Timestamp): earlier than `at` when the original signature was sent again. */
  readonly signedAt: Date;
  /** The receiver's HTTP status; undefined when no answer came (connection failed, timeout). */
  readonly httpStatus: number | undefined;
  /** Why no answer came, when none did. */
  readonly error: string | undefined;
  /** True only for HTTP 200, the one answer spec 6.1 counts as acknowledged. */
  readonly delivered: boolean;
}

/** The attempts of one callback and whether one of them was acknowledged. */
export interface DeliveryResult {
  /** The delivery's id, for `redeliver()`. */
  readonly id: string;
  /** The delivery this one sends again, for a redelivery. */
  readonly redeliveryOf: string | undefined;
  readonly url: string;
  readonly delivered: boolean;
  readonly attempts: readonly DeliveryAttempt[];
}

export interface Callback {
  readonly kind: CallbackKind;
  readonly trackingCode: string;
  readonly status: string;
  readonly url: string;
  /** Signs the callback with the current time. */
  readonly sign: () => SignedCallback;
}

/** How one delivery signs its attempts. */
export interface DeliverOptions {
  /** Sign every attempt afresh (true), or send the first signature again; the sandbox's `callbackRetry.resign` when left out. */
  readonly resign?: boolean | undefined;
  /** Fail every attempt as if the receiver were down, without sending it (SettleOptions.failDeliveries). */
  readonly failDeliveries?: boolean | undefined;
}

/** What an attempt of `failDeliveries` records: no answer came, as from an endpoint that is down. */
export const ENDPOINT_DOWN = 'the endpoint was down (settle with failDeliveries): not sent';

const DEFAULT_RETRY: Required<{ [K in keyof CallbackRetryOptions]: NonNullable<CallbackRetryOptions[K]> }> = SANDBOX_DEFAULTS.callbackRetry;

/** A delivery as the log keeps it: its callback, the signature it was first sent with, its attempts. */
interface Delivery {
  readonly id: string;
  readonly callback: Callback;
  /** The first signature of the callback, the one `resign: false` sends again. */
  readonly original: SignedCallback;
  readonly redeliveryOf: string | undefined;
  readonly attempts: DeliveryAttempt[];
}

/**
 * POSTs callbacks with bounded retries: any answer but HTTP 200 (spec 6.1), a connection failure
 * or a timeout is a failed attempt, retried after `backoffMs * 2^(n - 1)` until `attempts` are
 * spent. Keeps the last `maxDeliveries` deliveries so that they can be listed and sent again.
 */
export class Deliverer {
  readonly #retry: typeof DEFAULT_RETRY;
  readonly #max: number;
  readonly #log = new Map<string, Delivery>();
  readonly #inFlight = new Set<Promise<DeliveryResult>>();
  #sequence = 0;

  constructor(retry: CallbackRetryOptions | undefined, maxDeliveries: number = SANDBOX_DEFAULTS.maxDeliveries) {
    this.#retry = {
      attempts: retry?.attempts ?? DEFAULT_RETRY.attempts,
      backoffMs: retry?.backoffMs ?? DEFAULT_RETRY.backoffMs,
      timeoutMs: retry?.timeoutMs ?? DEFAULT_RETRY.timeoutMs,
      resign: retry?.resign ?? DEFAULT_RETRY.resign,
    };
    this.#max = maxDeliveries;
  }

  /** Delivers one callback; resolves when it was acknowledged or its attempts ran out. Never rejects. */
  deliver(callback: Callback, options: DeliverOptions = {}): Promise<DeliveryResult> {
    const signed = callback.sign();
    return this.#start(callback, signed, signed, undefined, options.resign, options.failDeliveries);
  }

  /**
   * Delivers a logged callback again, to `url` (the kind's URL now) or where it went before:
   * signed afresh, or with the signature it was first sent with. Undefined for an unknown id.
   */
  redeliver(id: string, url: string | undefined, options: DeliverOptions = {}): Promise<DeliveryResult> | undefined {
    const before = this.#log.get(id);
    if (before === undefined) return undefined;
    const callback = { ...before.callback, url: url ?? before.callback.url };
    const resign = options.resign ?? this.#retry.resign;
    return this.#start(callback, before.original, resign ? callback.sign() : before.original, id, resign);
  }

  /** The callback kind of a logged delivery. */
  kindOf(id: string): CallbackKind | undefined {
    return this.#log.get(id)?.callback.kind;
  }

  /** Every attempt still logged, oldest first. */
  attempts(): DeliveryAttempt[] {
    return [...this.#log.values()].flatMap((delivery) => delivery.attempts);
  }

  /** The logged deliveries of one record, oldest first. */
  deliveriesOf(trackingCode: string): DeliveryResult[] {
    return [...this.#log.values()].filter((delivery) => delivery.callback.trackingCode === trackingCode).map(resultOf);
  }

  /** Resolves when no delivery is under way, including those started while waiting. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  #start(callback: Callback, original: SignedCallback, first: SignedCallback, redeliveryOf: string | undefined, resign: boolean | undefined, failDeliveries?: boolean): Promise<DeliveryResult> {
    const delivery: Delivery = { id: `dlv_${++this.#sequence}`, callback, original, redeliveryOf, attempts: [] };
    this.#log.set(delivery.id, delivery);
    // Oldest first: a Map iterates in insertion order.
    for (const id of this.#log.keys()) {
      if (this.#log.size <= this.#max) break;
      this.#log.delete(id);
    }
    const run = this.#run(delivery, first, resign ?? this.#retry.resign, failDeliveries === true);
    this.#inFlight.add(run);
    void run.finally(() => this.#inFlight.delete(run));
    return run;
  }

  async #run(delivery: Delivery, first: SignedCallback, resign: boolean, down: boolean): Promise<DeliveryResult> {
    const { callback } = delivery;
    for (let attempt = 1; attempt <= this.#retry.attempts; attempt++) {
      // An endpoint that stays down: every attempt fails at once, so its retries need no waiting.
      if (attempt > 1 && !down) await sleep(this.#retry.backoffMs * 2 ** (attempt - 2));
      const signed = attempt === 1 || !resign ? first : callback.sign();
      const outcome = down ? { httpStatus: undefined, error: ENDPOINT_DOWN } : await this.#post(callback.url, signed);
      const record: DeliveryAttempt = {
        deliveryId: delivery.id,
        callback: callback.kind,
        trackingCode: callback.trackingCode,
        status: callback.status,
        url: callback.url,
        attempt,
        at: new Date(),
        signedAt: new Date(Number(signed.headers['X-Timestamp']) * 1000),
        ...outcome,
        delivered: outcome.httpStatus === 200,
      };
      delivery.attempts.push(record);
      if (record.delivered) break;
    }
    return resultOf(delivery);
  }

  async #post(url: string, { headers, body }: SignedCallback): Promise<{ httpStatus: number | undefined; error: string | undefined }> {
    try {
      // Read at call time: msw and other test doubles patch globalThis.fetch after import.
      const answer = await globalThis.fetch(url, {
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
      return { httpStatus: undefined, error: failureMessage(error) };
    }
  }
}

function resultOf(delivery: Delivery): DeliveryResult {
  const attempts = [...delivery.attempts];
  return { id: delivery.id, redeliveryOf: delivery.redeliveryOf, url: delivery.callback.url, delivered: attempts.some((attempt) => attempt.delivered), attempts };
}

function failureMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
