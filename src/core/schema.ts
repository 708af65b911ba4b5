import * as z from 'zod';

/*
 * Building blocks of the wire schemas. Requests are strict (`z.strictObject`, exact types);
 * responses are lenient: unknown fields are kept and the plausible variants a server may send
 * (a number as a numeric string, a decimal as a number) are normalised to the documented type.
 */

/** An amount in a request: a finite JSON number of at least `min` (spec 4.1: minimum 1). */
export const requestAmount = (min: number) =>
  z.number().min(min, { error: `must be at least ${min}` });

/** A required non-empty string in a request. */
// A regex, not trim(): the SDK must send the caller's value unchanged.
export const requiredString = () => z.string().regex(/\S/, { error: 'is required' });

const NUMERIC = /^-?\d+(\.\d+)?$/;

/** A number in an answer; a numeric string is accepted and converted. */
export const responseNumber = z.union([
  z.number(),
  z.string().trim().regex(NUMERIC).transform(Number),
]);

/** A string in an answer that a server may send as a number (an id): a number is kept as its text. */
export const responseString = z.union([z.string(), z.number().transform(String)]);

/** An integer in an answer; a numeric string is accepted and converted. */
export const responseInteger = z.union([
  z.number().int(),
  z.string().trim().regex(/^-?\d+$/).transform(Number),
]);

/**
 * A decimal in an answer, handed over as the documented decimal string ("1500.00").
 * A JSON number is accepted and converted without float formatting surprises for integers.
 */
export const responseDecimal = z.union([
  z.string().trim().regex(NUMERIC),
  z.number().transform((value) => String(value)),
]);

/** A boolean in an answer; 0/1 and "true"/"false" are accepted. */
export const responseBoolean = z.union([
  z.boolean(),
  z.literal(1).transform(() => true),
  z.literal(0).transform(() => false),
  z.enum(['true', 'false']).transform((value) => value === 'true'),
]);

/**
 * A string from a known set that the service may extend: typed as the known values plus
 * any string, so that editors suggest the known ones and a new value does not break parsing.
 * The known values stay readable as `options`, like `z.enum`'s.
 */
export const openEnum = <const T extends readonly string[]>(options: T) =>
  Object.assign(
    z.custom<T[number] | (string & {})>((value) => typeof value === 'string', { error: 'expected a string' }),
    { options },
  );

/** `success: true` of every success body (spec 2.1). Absent is tolerated; `false` never reaches a schema. */
export const successFlag = z.literal(true).optional();
