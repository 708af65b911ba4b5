import { RequestValidationError } from '../errors/request-validation-error.js';

/*
 * Checks of the options a user gives a client, a call or verifyCallback. An impossible value
 * must fail where it is given, naming the option, the value and the range: left alone, a
 * `timeout` of Infinity becomes a 1 ms timer (Node clamps it) and a payment that went through is
 * reported as timed out; a `maxRetries` of NaN retries without end; an empty key hashes as "".
 * The error is a RequestValidationError: nothing was sent, fix the input.
 */

/** Largest delay a timer takes: Node clamps anything larger (or not finite) to 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Retries beyond this only lengthen an outage; the backoff reaches its 8 s cap by then. */
export const MAX_RETRIES_CAP = 10;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) return String(value);
  return typeof value;
}

function refuse(where: string, option: string, value: unknown, allowed: string): never {
  throw new RequestValidationError(where, [{ field: option, rule: 'invalid_option', message: `must be ${allowed}; got ${describe(value)}` }]);
}

/** A finite number of milliseconds a timer can wait: 1..2^31-1. */
export function checkTimeout(where: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    refuse(where, 'timeout', value, `a finite number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
}

/** An integer from `min` to `max`; the value once checked, for options read with their default applied. */
export function checkIntegerInRange(where: string, option: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) refuse(where, option, value, `an integer from ${min} to ${max}`);
  return value;
}

/** An integer 0..10. */
export function checkMaxRetries(where: string, value: unknown): void {
  if (value !== undefined) checkIntegerInRange(where, 'maxRetries', value, 0, MAX_RETRIES_CAP);
}

/** A positive safe integer. */
export function checkPositiveInteger(where: string, option: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) refuse(where, option, value, 'a positive integer');
}

/** A finite number (a clock offset, a clock reading). */
export function checkFinite(where: string, option: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) refuse(where, option, value, 'a finite number');
}

/** A number of seconds: finite and not negative. */
export function checkSeconds(where: string, option: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) refuse(where, option, value, 'a finite number of seconds, 0 or more');
}

/**
 * A key: non-empty text. The message names the environment variable the examples read, the usual
 * source of an `undefined` key. The value itself is never shown: it may be a secret.
 */
export function checkKey(where: string, option: string, value: unknown, environmentVariable: string): void {
  if (typeof value === 'string' && value !== '') return;
  const got = value === undefined ? 'undefined' : value === '' ? 'an empty string' : typeof value;
  throw new RequestValidationError(where, [
    { field: option, rule: 'invalid_option', message: `must be a non-empty string (for example from ${environmentVariable}); got ${got}` },
  ]);
}

/** The environment variables the examples read each key from, named in the error when a key is missing. */
export interface KeySources {
  readonly apiKey: string;
  readonly secretKey: string;
}

/**
 * The options every client takes, checked in its constructor so that a bad value fails at start-up
 * rather than on the first payment.
 */
export function checkClientOptions(where: string, options: unknown, sources: KeySources): void {
  if (typeof options !== 'object' || options === null) {
    throw new RequestValidationError(where, [{ field: '(options)', rule: 'invalid_option', message: `must be an object with baseUrl, apiKey and secretKey; got ${describe(options)}` }]);
  }
  const given = options as Readonly<Record<string, unknown>>;
  checkKey(where, 'apiKey', given['apiKey'], sources.apiKey);
  checkKey(where, 'secretKey', given['secretKey'], sources.secretKey);
  checkRequestOptions(where, given);
  checkPositiveInteger(where, 'maxResponseBytes', given['maxResponseBytes']);
  if (given['clockOffsetMs'] !== undefined) checkFinite(where, 'clockOffsetMs', given['clockOffsetMs']);
  for (const name of ['fetch', 'now', 'onRequest', 'onResponse']) {
    const value = given[name];
    if (value !== undefined && typeof value !== 'function') refuse(where, name, value, 'a function');
  }
  checkTracer(where, given['tracer']);
}

/** An OpenTelemetry Tracer, or anything with its `startActiveSpan`. */
export function checkTracer(where: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || typeof (value as { startActiveSpan?: unknown }).startActiveSpan !== 'function') {
    refuse(where, 'tracer', value, 'an OpenTelemetry Tracer (an object with a startActiveSpan method), for example trace.getTracer(\'my-app\')');
  }
}

/** The options a single call may override: `timeout` and `maxRetries`. Cheap enough for every call. */
export function checkRequestOptions(where: string, options: Readonly<Record<string, unknown>>): void {
  checkTimeout(where, options['timeout']);
  checkMaxRetries(where, options['maxRetries']);
}
