import * as z from 'zod';

/*
 * Building blocks of the wire schemas. Requests are strict (`z.strictObject`, exact types);
 * answers and callbacks are lenient (`lenientObject`): unknown fields are kept, `null` in an
 * optional field reads as absent, and the plausible variants a server may send (a number as a
 * numeric string, a decimal as a number) are normalised to the documented type.
 */

/**
 * What a lenient building block is on the wire by the spec, and what payorch accepts besides.
 * Metadata only, for the OpenAPI document (src/openapi/document.ts), which shows `spec` as the
 * field's type and writes `tolerates` in prose; parsing never reads it. A registry, not a field
 * of the schema, so it survives `.describe()` (zod's registries inherit a clone's metadata).
 */
export interface WireType {
  /** JSON Schema of the spec's type; absent when it is the wrapped schema's (the `null` tolerance). */
  readonly spec?: Readonly<Record<string, unknown>>;
  /** What payorch also accepts, in words. */
  readonly tolerates: string;
  /** The spec always sends the field; payorch tolerates its absence. */
  readonly required?: true;
}

export const wireTypes = z.registry<WireType>();

/** How the OpenAPI document describes the `null` an optional answer field tolerates. */
const NULL_AS_ABSENT: WireType = { tolerates: '`null` in an optional field (read as absent)' };

/** What `lenientObject` makes of a field declared `.optional()`: it also accepts `null`, read as absent. */
export type OptionalOrNull<T extends z.ZodType> = z.ZodOptional<z.ZodType<z.output<T> | undefined, z.input<T> | null>>;

/** The shape `lenientObject` builds from a declared shape (homomorphic, so field JSDoc carries over). */
export type LenientShape<S extends z.core.$ZodShape> = {
  [K in keyof S]: S[K] extends z.ZodOptional<infer T extends z.ZodType> ? OptionalOrNull<T> : S[K];
};

/**
 * The object of every answer and callback body (docs/decisions.md, "Lenient answers, exact types"):
 * - a field declared `.optional()` is absent, `null` or a value, and `null` reads as absent
 *   (`undefined`), so user code tests one thing;
 * - fields the spec does not list are kept at run time (a new field of the service reaches the
 *   caller), but the type lists exactly the declared fields, so a misspelt field does not compile.
 *   Read an unlisted field through `Record<string, unknown>`:
 *   `const extra: Record<string, unknown> = answer.data; extra['new_field']`.
 */
export function lenientObject<const S extends z.core.$ZodShape>(shape: S): z.ZodObject<LenientShape<S>> {
  const lenient: Record<string, z.core.$ZodType> = {};
  const optional: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    if (!(field instanceof z.ZodOptional)) {
      lenient[key] = field;
      continue;
    }
    const nullable = (field.unwrap() as z.ZodType).nullable();
    wireTypes.add(nullable, NULL_AS_ABSENT);
    lenient[key] = nullable.optional();
    optional.push(key);
  }
  // One step on the whole object rather than a transform per field: a per-field pipe costs every
  // present field a second schema run (docs/decisions.md). zod's object parse returns a new object,
  // so the step writes on zod's output and the caller's input keeps its nulls.
  const object = z.looseObject(lenient).overwrite((value) => {
    for (const key of optional) if (value[key] === null) value[key] = undefined;
    return value;
  });
  // A loose object at run time, typed as a stripping one whose optional fields are never null:
  // the cast is the whole trick, in one place.
  return object as unknown as z.ZodObject<LenientShape<S>>;
}

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
wireTypes.add(responseNumber, { spec: { type: 'number' }, tolerates: 'a number as a numeric string ("250.00")' });

/** A string in an answer that a server may send as a number (an id): a number is kept as its text. */
export const responseString = z.union([z.string(), z.number().transform(String)]);
wireTypes.add(responseString, { spec: { type: 'string' }, tolerates: 'an id as a number' });

/** An integer in an answer; a numeric string is accepted and converted. */
export const responseInteger = z.union([
  z.number().int(),
  z.string().trim().regex(/^-?\d+$/).transform(Number),
]);
wireTypes.add(responseInteger, { spec: { type: 'integer' }, tolerates: 'an integer as a numeric string ("12")' });

/**
 * A decimal in an answer, handed over as the documented decimal string ("1500.00").
 * A JSON number is accepted and converted without float formatting surprises for integers.
 */
export const responseDecimal = z.union([
  z.string().trim().regex(NUMERIC),
  z.number().transform((value) => String(value)),
]);
wireTypes.add(responseDecimal, { spec: { type: 'string', pattern: NUMERIC.source }, tolerates: 'a decimal string as a JSON number' });

/** A boolean in an answer; 0/1 and "true"/"false" are accepted. */
export const responseBoolean = z.union([
  z.boolean(),
  z.literal(1).transform(() => true),
  z.literal(0).transform(() => false),
  z.enum(['true', 'false']).transform((value) => value === 'true'),
]);
wireTypes.add(responseBoolean, { spec: { type: 'boolean' }, tolerates: 'a boolean as 1/0 or "true"/"false"' });

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

/**
 * `success: true` of every success body (spec 2.1), also as other stacks write it (`"true"`, `1`).
 * Absent is tolerated; a false one (`false`, `"false"`, `0`) never reaches a schema: the transport
 * reports it as a refusal.
 */
const successTrue = z.literal([true, 'true', 1]).transform((): true => true);
wireTypes.add(successTrue, { spec: { type: 'boolean', const: true }, required: true, tolerates: '`success` as `"true"` or `1`, or left out' });
export const successFlag = successTrue.optional();
