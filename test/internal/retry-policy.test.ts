import { describe, expect, test, vi } from 'vitest';
import { MAX_RETRY_AFTER_MS, attemptOutcome, backoffDelay, mayResend, retryAfterMs, statusRetryDelay, worstOutcome } from '../../src/internal/retry-policy.js';
import type { AttemptEnd } from '../../src/internal/retry-policy.js';
import type { CallOutcome } from '../../src/index.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');

describe('backoffDelay', () => {
  test('doubles from 300 ms and stops at 8 s, at the top of its jitter', () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    expect([1, 2, 3, 4, 5, 6, 7].map(backoffDelay)).toEqual([300, 600, 1200, 2400, 4800, 8000, 8000]);
  });

  test('can be zero: full jitter spreads clients that failed together', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(backoffDelay(3)).toBe(0);
  });
});

describe('retryAfterMs', () => {
  test.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
  ])('reads delay-seconds %s as %i ms', (value, expected) => {
    expect(retryAfterMs(new Headers({ 'retry-after': value }), NOW)).toBe(expected);
  });

  test("measures an HTTP date against the answer's Date header, not the local clock", () => {
    const headers = new Headers({ date: 'Sun, 22 Nov 2026 10:10:00 GMT', 'retry-after': 'Sun, 22 Nov 2026 10:10:30 GMT' });
    expect(retryAfterMs(headers, NOW)).toBe(30_000);
  });

  test('measures an HTTP date against the local clock when the answer has no Date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' }), NOW)).toBe(5_000);
  });

  test('a date in the past means no wait', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 09:00:00 GMT' }), NOW)).toBe(0);
  });

  test.each(['', 'soon', '-1'])('ignores %j', (value) => {
    expect(retryAfterMs(new Headers({ 'retry-after': value }), NOW)).toBeUndefined();
  });
});

describe('statusRetryDelay', () => {
  test.each([200, 301, 400, 401, 403, 404, 409, 413, 422, 501])('does not retry HTTP %i', (status) => {
    expect(statusRetryDelay(status, new Headers(), 1, NOW)).toBeUndefined();
  });

  test('honours Retry-After up to the cap', () => {
    expect(statusRetryDelay(429, new Headers({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000) }), 1, NOW)).toBe(MAX_RETRY_AFTER_MS);
  });

  test('gives up when Retry-After asks for more than the cap', () => {
    expect(statusRetryDelay(503, new Headers({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) }), 1, NOW)).toBeUndefined();
  });

  test('backs off when a transient status has no Retry-After', () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    expect(statusRetryDelay(502, new Headers(), 2, NOW)).toBe(600);
  });
});

describe('attemptOutcome, the one classification of what may have arrived', () => {
  test.each<[string, AttemptEnd, CallOutcome]>([
    ['nothing handed to fetch', { kind: 'not_started' }, 'not_sent'],
    ['a refused connection', { kind: 'no_answer', reason: 'connection_refused' }, 'not_sent'],
    ['a name that did not resolve', { kind: 'no_answer', reason: 'name_not_resolved' }, 'not_sent'],
    ['no route to the host', { kind: 'no_answer', reason: 'host_unreachable' }, 'not_sent'],
    ['a connection never established', { kind: 'no_answer', reason: 'connect_timeout' }, 'not_sent'],
    ['a failed TLS handshake', { kind: 'no_answer', reason: 'tls_handshake' }, 'not_sent'],
    ['a connection the runtime does not permit', { kind: 'no_answer', reason: 'not_permitted' }, 'not_sent'],
    ['a reset after the handshake', { kind: 'no_answer', reason: 'connection_failed' }, 'unknown'],
    ['a 400', { kind: 'answer', status: 400, refusal: false }, 'refused'],
    ['a 429', { kind: 'answer', status: 429, refusal: false }, 'refused'],
    ['a 200 with success false', { kind: 'answer', status: 200, refusal: true }, 'refused'],
    ['a 200 payorch cannot read', { kind: 'answer', status: 200, refusal: false }, 'unknown'],
    ['a 302', { kind: 'answer', status: 302, refusal: false }, 'unknown'],
    ['a 500 even with success false', { kind: 'answer', status: 500, refusal: true }, 'unknown'],
    ['an opaque redirect (status 0)', { kind: 'answer', status: 0, refusal: false }, 'unknown'],
  ])('%s is %s', (_name, end, outcome) => {
    expect(attemptOutcome(end)).toBe(outcome);
  });

  test.each<[boolean, CallOutcome, boolean]>([
    [false, 'not_sent', true],
    [false, 'refused', false],
    [false, 'unknown', false],
    [true, 'not_sent', true],
    [true, 'refused', true],
    [true, 'unknown', true],
  ])('mayResend(resendable %s, %s) is %s: a payment only when it cannot have arrived', (resendable, outcome, expected) => {
    expect(mayResend(resendable, outcome)).toBe(expected);
  });

  test('the outcome of several attempts is the least safe one, in either order', () => {
    const all: CallOutcome[] = ['not_sent', 'refused', 'unknown'];
    for (const [i, a] of all.entries()) {
      for (const [j, b] of all.entries()) {
        expect(worstOutcome(a, b)).toBe(all[Math.max(i, j)]);
      }
    }
  });
});
