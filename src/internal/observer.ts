import type { Logger, Observers, RequestEvent, ResponseEvent } from '../core/observability.js';

/**
 * Shortens a secret to at most its last 4 characters (`…e9d1`), so that a log line can tell
 * two keys apart without revealing either. Values under 12 characters keep nothing.
 */
export function maskSecret(value: string): string {
  return value.length >= 12 ? `…${value.slice(-4)}` : '…';
}

const SECRET_HEADERS = new Set(['x-api-key', 'x-hash', 'x-key', 'x-credential-key']);

/** The headers of a request, safe to log. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? maskSecret(value) : value]));
}

/**
 * Calls the user's hooks and logger. A hook or logger that throws must not change the outcome
 * of a call: a payment that went through must not surface as a failure, or it would be retried.
 */
export class Observer {
  readonly #observers: Observers;

  constructor(observers: Observers) {
    this.#observers = observers;
  }

  log(level: keyof Logger, fields: Readonly<Record<string, unknown>>, message: string): void {
    const logger = this.#observers.logger;
    if (logger === undefined) return;
    try {
      logger[level](fields, message);
    } catch {
      // A broken logger is the user's to notice; the call goes on.
    }
  }

  request(event: RequestEvent): void {
    this.log('debug', { ...event }, `payorch → ${event.method} ${event.url} (attempt ${event.attempt})`);
    this.#call(this.#observers.onRequest, event, 'onRequest');
  }

  response(event: ResponseEvent): void {
    const { error, ...rest } = event;
    const answered = event.status === undefined ? (error?.name ?? 'no answer') : `HTTP ${event.status}`;
    const outcome = event.outcome === undefined ? '' : ` (outcome: ${event.outcome})`;
    this.log('debug', { ...rest, error: error === undefined ? undefined : `${error.name}: ${error.message}` }, `payorch ← ${event.method} ${event.url} ${answered}${outcome} in ${event.durationMs} ms (attempt ${event.attempt})`);
    this.#call(this.#observers.onResponse, event, 'onResponse');
  }

  #call<E>(hook: ((event: E) => unknown) | undefined, event: E, name: string): void {
    if (hook === undefined) return;
    try {
      // Typed as returning void, but an async hook returns a promise: it is not awaited, and its
      // rejection must not become an unhandled one.
      const result = hook(event);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          this.#hookFailed(name, error);
        });
      }
    } catch (error) {
      this.#hookFailed(name, error);
    }
  }

  #hookFailed(name: string, error: unknown): void {
    this.log('error', { hook: name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }, `payorch: the ${name} hook threw; the call went on`);
  }
}
