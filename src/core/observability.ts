import type { CallOutcome, PayorchError } from '../errors/error.js';

/**
 * One log method. Fields come first and the message second, the call shape of pino
 * (`logger.info(obj, msg)`); `console` accepts it too and prints both.
 */
export type LogFunction = (fields: Readonly<Record<string, unknown>>, message: string) => void;

/**
 * Where payorch writes what it does: `console`, a pino or bunyan logger, or your own object.
 * `debug` gets every attempt, `info` a learned clock offset, `warn` every retry, `error` every
 * failed call. Nothing secret is ever passed: no secret key, hash, full credential key or X-Key,
 * and no request or answer body.
 *
 * @example
 * ```ts
 * import { ProviderClient } from 'payorch';
 * import type { Logger } from 'payorch';
 * declare const keys: { baseUrl: string; apiKey: string; secretKey: string };
 * declare function pino(options: { level: string }): Logger; // or pino itself
 * new ProviderClient({ ...keys, logger: console });
 * new ProviderClient({ ...keys, logger: pino({ level: 'debug' }) });
 * ```
 */
export interface Logger {
  readonly debug: LogFunction;
  readonly info: LogFunction;
  readonly warn: LogFunction;
  readonly error: LogFunction;
}

/** What `onRequest` is told just before an attempt goes on the wire. */
export interface RequestEvent {
  /** Public name of the call, for example `manual.startDeposit`. */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  readonly attempt: number;
  /** The headers sent, with X-Api-Key, X-Hash, X-Key and X-Credential-Key cut to their last 4 characters. */
  readonly headers: Readonly<Record<string, string>>;
}

/** What `onResponse` is told when an attempt ends, answered or not. */
export interface ResponseEvent {
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly attempt: number;
  /** Milliseconds from sending to the end of the body (or the failure). */
  readonly durationMs: number;
  /** HTTP status, or `undefined` when no answer came (connection failure, timeout, abort). */
  readonly status: number | undefined;
  /** Why the attempt failed, or `undefined` when it succeeded. */
  readonly error: PayorchError | undefined;
  /**
   * For a failed attempt, whether the service may have acted on it (`error.outcome`): `not_sent`,
   * `refused` or `unknown`; `undefined` when it succeeded.
   */
  readonly outcome: CallOutcome | undefined;
  /** Milliseconds until the next attempt, or `undefined` when none follows. */
  readonly retryDelayMs: number | undefined;
}

/** The observability settings of a client, all optional. */
export interface Observers {
  readonly logger?: Logger | undefined;
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  readonly onResponse?: ((event: ResponseEvent) => void) | undefined;
}
