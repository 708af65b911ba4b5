import fc from 'fast-check';
import * as z from 'zod';

/*
 * fast-check arbitraries read off payorch's answer schemas: for the property tests of the
 * lenient building blocks (null, absent and present optional fields). Written for the kinds of
 * schema src/core/schema-blocks.ts builds answers from; any other kind fails loudly, so a new building
 * block cannot slip past the tests unexercised.
 */

/** How the optional fields of generated bodies are filled. */
export type OptionalMode = 'present' | 'any';

const ABSENT = Symbol('absent');

/** Every JSON value a service could plausibly add as an unknown field. */
const jsonExtra = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));

/** A body `schema` accepts, with optional fields present, or each absent, `null` or present. */
export function arbitraryOf(schema: z.ZodType, mode: OptionalMode): fc.Arbitrary<unknown> {
  if (schema instanceof z.ZodObject) {
    const fields = Object.fromEntries(Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => [key, fieldArbitrary(field, mode)] as const));
    // Unknown fields, as a newer service may add them, on every lenient object.
    const extra = fc.dictionary(fc.constantFrom('x_new_field', 'x_region', 'x_meta'), jsonExtra, { maxKeys: 2 });
    return fc.record(fields).chain((known) =>
      extra.map((unknownFields) => {
        const body: Record<string, unknown> = { ...unknownFields };
        for (const [key, value] of Object.entries(known)) if (value !== ABSENT) body[key] = value;
        return body;
      }),
    );
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return arbitraryOf(schema.unwrap() as z.ZodType, mode);
  if (schema instanceof z.ZodPipe) return arbitraryOf(schema.in as z.ZodType, mode);
  if (schema instanceof z.ZodUnion) return fc.oneof(...schema.options.map((option) => arbitraryOf(option as z.ZodType, mode)));
  if (schema instanceof z.ZodArray) return fc.array(arbitraryOf(schema.element as z.ZodType, mode), { minLength: 1, maxLength: 3 });
  if (schema instanceof z.ZodString) {
    const checks = (schema.def.checks ?? []).map((check) => check._zod.def as z.core.$ZodCheckDef & { format?: string; pattern?: RegExp });
    if (checks.some((check) => check.check !== 'overwrite' && check.format !== 'regex')) throw new Error('a string check other than a pattern: teach test/helpers/arbitrary.ts about it');
    const pattern = checks.find((check) => check.format === 'regex')?.pattern;
    return pattern === undefined ? fc.string() : fc.stringMatching(pattern);
  }
  if (schema instanceof z.ZodNumber) return schema.format?.includes('int') === true ? fc.integer() : fc.double({ noNaN: true, noDefaultInfinity: true });
  if (schema instanceof z.ZodBoolean) return fc.boolean();
  if (schema instanceof z.ZodLiteral) return fc.constantFrom(...schema.values);
  if (schema instanceof z.ZodEnum) return fc.constantFrom(...schema.options);
  if (schema instanceof z.ZodCustom) {
    // openEnum: its known values, or any other string a newer service may send.
    const { options } = schema as unknown as { options?: readonly string[] };
    if (options === undefined) throw new Error('a custom schema without options: teach test/helpers/arbitrary.ts about it');
    return fc.oneof(fc.constantFrom(...options), fc.string());
  }
  throw new Error(`no arbitrary for a zod ${schema.def.type}: teach test/helpers/arbitrary.ts about it`);
}

function fieldArbitrary(field: z.ZodType, mode: OptionalMode): fc.Arbitrary<unknown> {
  const value = arbitraryOf(field, mode);
  if (field._zod.optin !== 'optional' || mode === 'present') return value;
  return fc.oneof(fc.constant(ABSENT), fc.constant(null), value);
}

/** One optional field of an answer: where it sits (array items at index 0) and its schema. */
export interface OptionalField {
  readonly path: readonly (string | number)[];
  readonly schema: z.ZodType;
}

/** Every optional field of every object reachable from `schema`, depth first. */
export function optionalFields(schema: z.ZodType, path: readonly (string | number)[] = []): OptionalField[] {
  if (schema instanceof z.ZodObject) {
    return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]) => [
      ...(field._zod.optin === 'optional' ? [{ path: [...path, key], schema: field }] : []),
      ...optionalFields(field, [...path, key]),
    ]);
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return optionalFields(schema.unwrap() as z.ZodType, path);
  if (schema instanceof z.ZodPipe) return optionalFields(schema.in as z.ZodType, path);
  if (schema instanceof z.ZodArray) return optionalFields(schema.element as z.ZodType, [...path, 0]);
  return [];
}

/** The value at `path`, or undefined where the path ends early. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let here: unknown = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<string | number, unknown>)[key];
  }
  return here;
}
