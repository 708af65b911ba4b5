import type { LogLevel } from '../core/log-level.js';
import { levelledLogger } from '../core/log-level.js';
import type { LevelledLogger } from '../core/log-level.js';
import type { Logger, Observers, RequestEvent, ResponseEvent } from '../core/observability.js';
import { callListener } from '../core/listener.js';

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

/** Where an attempt went, as a log line names it: never the query (wallet and transfer ids), a header or a body. */
export interface LoggedCall {
  /** `provider.manual.startDeposit`. */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  /** The URL's path, without its query. */
  readonly path: string;
}

/**
 * Calls the user's hooks and writes the log. A hook or logger that throws must not change the
 * outcome of a call: a payment that went through must not surface as a failure, or it would be
 * retried. A log line names the operation, method, path, status and duration, and the error's
 * class and outcome: never a body, a key, a hash or a query value.
 */
export class Observer {
  readonly #observers: Observers;
  readonly #logger: LevelledLogger;
  /** Whether anything reads an attempt's events: the hooks, or a logger at `debug`. */
  readonly observed: boolean;

  constructor(observers: Observers & { readonly logLevel?: LogLevel | undefined }) {
    this.#observers = observers;
    this.#logger = levelledLogger(observers.logger, observers.logLevel);
    this.observed = this.#logger.enabled('debug') || observers.onRequest !== undefined || observers.onResponse !== undefined;
  }

  /** Whether a line at `level` is written: checked before its fields are built. */
  enabled(level: keyof Logger): boolean {
    return this.#logger.enabled(level);
  }

  log(level: keyof Logger, fields: Readonly<Record<string, unknown>>, message: string): void {
    this.#logger[level](fields, message);
  }

  request(event: RequestEvent, call: LoggedCall): void {
    if (this.#logger.enabled('debug')) this.log('debug', { ...call, attempt: event.attempt }, `payorch → ${call.method} ${call.path} (${call.operation}) attempt ${event.attempt}`);
    this.#call(this.#observers.onRequest, event, 'onRequest');
  }

  response(event: ResponseEvent, call: LoggedCall): void {
    if (this.#logger.enabled('debug')) {
      const { error, status, durationMs, attempt, outcome } = event;
      const answered = status === undefined ? (error?.name ?? 'no answer') : `HTTP ${status}`;
      const fields = { ...call, attempt, status, durationMs, error: error?.name, outcome };
      this.log('debug', fields, `payorch ← ${call.method} ${call.path} (${call.operation}) ${answered}${outcome === undefined ? '' : ` (outcome: ${outcome})`} in ${durationMs} ms (attempt ${attempt})`);
    }
    this.#call(this.#observers.onResponse, event, 'onResponse');
  }

  #call<E>(hook: ((event: E) => unknown) | undefined, event: E, name: string): void {
    if (hook === undefined) return;
    callListener(hook, [event], (error) => {
      this.#hookFailed(name, error);
    });
  }

  #hookFailed(name: string, error: unknown): void {
    if (!this.#logger.enabled('error')) return;
    this.log('error', { hook: name, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }, `payorch: the ${name} hook threw; the call went on`);
  }
}
