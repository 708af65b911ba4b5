import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { dateWindows, dayNumber, dayString } from '../../src/dealer/date-windows.js';

const run = promisify(execFile);

describe('dateWindows', () => {
  test('splits 10 days into three windows of 3 days and one of 1, sharing no day', () => {
    expect([...dateWindows('2026-03-01', '2026-03-10', 3)]).toEqual([
      { start_date: '2026-03-01', end_date: '2026-03-03' },
      { start_date: '2026-03-04', end_date: '2026-03-06' },
      { start_date: '2026-03-07', end_date: '2026-03-09' },
      { start_date: '2026-03-10', end_date: '2026-03-10' },
    ]);
  });

  test('gives one window for a single day', () => {
    expect([...dateWindows('2026-03-01', '2026-03-01', 3)]).toEqual([{ start_date: '2026-03-01', end_date: '2026-03-01' }]);
  });

  test('counts calendar days across a leap day and a year end', () => {
    expect([...dateWindows('2028-02-27', '2028-03-02', 3)]).toEqual([
      { start_date: '2028-02-27', end_date: '2028-02-29' },
      { start_date: '2028-03-01', end_date: '2028-03-02' },
    ]);
    expect([...dateWindows('2026-12-30', '2027-01-02', 3)]).toEqual([
      { start_date: '2026-12-30', end_date: '2027-01-01' },
      { start_date: '2027-01-02', end_date: '2027-01-02' },
    ]);
  });

  /*
   * A worker thread cannot change its time zone, so the zones run in a child process, one after
   * the other: Node's main thread follows process.env.TZ when it changes.
   */
  const ZONES = ['America/Los_Angeles', 'Pacific/Kiritimati'];
  let inZones: Promise<Record<string, { offset: number; windows: unknown }>> | undefined;
  const windowsInZones = () => {
    // 2026-03-08 is the day US clocks go forward: a local day there is 23 hours long.
    const script = `import('./src/dealer/date-windows.ts').then((m) => { const seen = {}; for (const zone of ${JSON.stringify(ZONES)}) { Object.assign(process.env, { TZ: zone }); seen[zone] = { offset: new Date(Date.UTC(2026, 2, 8, 12)).getTimezoneOffset(), windows: [...m.dateWindows('2026-03-07', '2026-03-12', 3)] }; } console.log(JSON.stringify(seen)); })`;
    inZones ??= run(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(import.meta.dirname, '../..'), env: { ...process.env, TZ: 'UTC' } }).then(
      ({ stdout }) => JSON.parse(stdout) as Record<string, { offset: number; windows: unknown }>,
    );
    return inZones;
  };

  test.each(ZONES)(
    'gives the same calendar-day windows in a process whose local time zone is %s, across a daylight saving change',
    async (zone) => {
      const { offset, windows } = (await windowsInZones())[zone] ?? { offset: 0, windows: undefined };
      expect(offset).not.toBe(0);
      expect(windows).toEqual([
        { start_date: '2026-03-07', end_date: '2026-03-09' },
        { start_date: '2026-03-10', end_date: '2026-03-12' },
      ]);
    },
    20_000,
  );

  test('gives no window when end is before start', () => {
    expect([...dateWindows('2026-03-02', '2026-03-01', 3)]).toEqual([]);
  });

  test('covers every day of any range exactly once, in order, with windows of 1 to 3 days', () => {
    const firstDay = dayNumber('1990-01-01');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 0, max: 400 }), (offset, length) => {
        const start = dayString(firstDay + offset);
        const end = dayString(firstDay + offset + length);
        const covered: string[] = [];
        for (const window of dateWindows(start, end, 3)) {
          const days = dayNumber(window.end_date) - dayNumber(window.start_date) + 1;
          expect(days).toBeGreaterThanOrEqual(1);
          expect(days).toBeLessThanOrEqual(3);
          for (let day = dayNumber(window.start_date); day <= dayNumber(window.end_date); day++) covered.push(dayString(day));
        }
        const expected = Array.from({ length: length + 1 }, (_, index) => dayString(firstDay + offset + index));
        expect(covered).toEqual(expected);
      }),
    );
  });
});

describe('dayNumber and dayString', () => {
  test('turn a date into days since 1970-01-01 and back', () => {
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(dayString(1)).toBe('1970-01-02');
    expect(dayString(dayNumber('2026-03-29'))).toBe('2026-03-29');
  });

  test('read years below 100 as written, not as 19xx', () => {
    expect(dayString(dayNumber('0050-06-15'))).toBe('0050-06-15');
  });
});
