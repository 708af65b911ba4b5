import { describe, expect, test } from 'vitest';
import { RecordClock, formatDate, formatDateTime, formatIsoLocal, formatIsoOffset, unixSeconds } from '../../src/tools/sandbox/clock.js';

const T = Date.UTC(2026, 0, 5, 7, 8, 9);

describe('RecordClock', () => {
  test('a pinned start stands still until moved', () => {
    let real = 1_000;
    const clock = new RecordClock(T, () => real);
    real += 60_000;
    expect(clock.now()).toBe(T);
    clock.advance(1_500);
    expect(clock.now()).toBe(T + 1_500);
    clock.set(new Date(T - 10_000));
    expect(clock.now()).toBe(T - 10_000);
  });

  test('without a start it follows real time, shifted by its moves', () => {
    let real = T;
    const clock = new RecordClock(undefined, () => real);
    real += 5_000;
    expect(clock.now()).toBe(T + 5_000);
    clock.advance(60_000);
    real += 1_000;
    expect(clock.now()).toBe(T + 66_000);
    clock.set(T);
    expect(clock.now()).toBe(T);
  });
});

describe('time formats', () => {
  test('each format of the spec, in UTC', () => {
    expect(formatDate(T)).toBe('2026-01-05');
    expect(formatDateTime(T)).toBe('2026-01-05 07:08:09');
    expect(formatIsoLocal(T)).toBe('2026-01-05T07:08:09');
    expect(formatIsoOffset(T)).toBe('2026-01-05T07:08:09+00:00');
    expect(unixSeconds(T + 999)).toBe(T / 1000);
  });
});
