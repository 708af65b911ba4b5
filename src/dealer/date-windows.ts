/*
 * Calendar-day arithmetic for `YYYY-MM-DD` dates. Days are counted in UTC so that a daylight
 * saving change in the local zone can never make a day 23 or 25 hours long.
 */

const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of a valid `YYYY-MM-DD` date. */
export function dayNumber(date: string): number {
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  const moment = new Date(0);
  moment.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return moment.getTime() / MS_PER_DAY;
}

/** The `YYYY-MM-DD` date of a day number. */
export function dayString(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** An inclusive run of calendar days. */
export interface DateWindow {
  readonly start_date: string;
  readonly end_date: string;
}

/**
 * Splits the inclusive range `start..end` into consecutive windows of at most `days` calendar
 * days, in date order. Windows share no day, so a record dated on a boundary (midnight included)
 * falls in exactly one of them; together they cover every day of the range.
 */
export function* dateWindows(start: string, end: string, days: number): Generator<DateWindow> {
  const last = dayNumber(end);
  for (let first = dayNumber(start); first <= last; first += days) {
    yield { start_date: dayString(first), end_date: dayString(Math.min(first + days - 1, last)) };
  }
}
