import fc from 'fast-check';
import type * as z from 'zod/mini';

/*
 * fast-check arbitraries read off payorch's answer schemas: for the property tests of the
 * lenient building blocks (null, absent and present optional fields). Written for the kinds of
 * schema src/internal/schema-blocks.ts builds answers from; any other kind fails loudly, so a new building
 * block cannot slip past the tests unexercised.
 */

/** How the optional fields of generated bodies are filled. */
export type OptionalMode = 'present' | 'any';

const ABSENT = Symbol('absent');

/** Every JSON value a service could plausibly add as an unknown field. */
const jsonExtra = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));

type Def = z.core.$ZodTypeDef & {
  readonly shape?: Readonly<Record<string, z.core.$ZodType>>;
  readonly innerType?: z.core.$ZodType;
  readonly in?: z.core.$ZodType;
  readonly options?: readonly z.core.$ZodType[];
  readonly element?: z.core.$ZodType;
  readonly format?: string;
  readonly values?: readonly z.core.util.Literal[];
  readonly entries?: Readonly<Record<string, string>>;
};

// Read through the definition, which classic zod and zod/mini share.
const defOf = (schema: z.core.$ZodType): Def => schema._zod.def;

/** A body `schema` accepts, with optional fields present, or each absent, `null` or present. */
export function arbitraryOf(schema: z.core.$ZodType, mode: OptionalMode): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  // Only the kinds payorch's schemas are built from; `default` handles the rest.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (def.type) {
    case 'object': {
      const fields = Object.fromEntries(Object.entries(def.shape ?? {}).map(([key, field]) => [key, fieldArbitrary(field, mode)] as const));
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
    case 'optional':
    case 'nullable':
      return arbitraryOf(def.innerType!, mode);
    case 'pipe':
      return arbitraryOf(def.in!, mode);
    case 'union':
      return fc.oneof(...(def.options ?? []).map((option) => arbitraryOf(option, mode)));
    case 'array':
      return fc.array(arbitraryOf(def.element!, mode), { minLength: 1, maxLength: 3 });
    case 'string': {
      const checks = (def.checks ?? []).map((check) => check._zod.def as z.core.$ZodCheckDef & { format?: string; pattern?: RegExp });
      if (checks.some((check) => check.check !== 'overwrite' && check.format !== 'regex')) throw new Error('a string check other than a pattern: teach test/helpers/arbitrary.ts about it');
      const pattern = checks.find((check) => check.format === 'regex')?.pattern;
      return pattern === undefined ? fc.string() : fc.stringMatching(pattern);
    }
    case 'number': {
      const formats = [def.format, ...(def.checks ?? []).map((check) => (check._zod.def as { format?: string }).format)];
      return formats.some((format) => format?.includes('int') === true) ? fc.integer() : fc.double({ noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'literal':
      return fc.constantFrom(...(def.values ?? []));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'custom': {
      // openEnum: its known values, or any other string a newer service may send.
      const { options } = schema as unknown as { options?: readonly string[] };
      if (options === undefined) throw new Error('a custom schema without options: teach test/helpers/arbitrary.ts about it');
      return fc.oneof(fc.constantFrom(...options), fc.string());
    }
    default:
      throw new Error(`no arbitrary for a zod ${def.type}: teach test/helpers/arbitrary.ts about it`);
  }
}

function fieldArbitrary(field: z.core.$ZodType, mode: OptionalMode): fc.Arbitrary<unknown> {
  const value = arbitraryOf(field, mode);
  if (field._zod.optin !== 'optional' || mode === 'present') return value;
  return fc.oneof(fc.constant(ABSENT), fc.constant(null), value);
}

/** One optional field of an answer: where it sits (array items at index 0) and its schema. */
export interface OptionalField {
  readonly path: readonly (string | number)[];
  readonly schema: z.core.$ZodType;
}

/** Every optional field of every object reachable from `schema`, depth first. */
export function optionalFields(schema: z.core.$ZodType, path: readonly (string | number)[] = []): OptionalField[] {
  const def = defOf(schema);
  // Only the kinds payorch's schemas are built from; `default` handles the rest.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([key, field]) => [
        ...(field._zod.optin === 'optional' ? [{ path: [...path, key], schema: field }] : []),
        ...optionalFields(field, [...path, key]),
      ]);
    case 'optional':
    case 'nullable':
      return optionalFields(def.innerType!, path);
    case 'pipe':
      return optionalFields(def.in!, path);
    case 'array':
      return optionalFields(def.element!, [...path, 0]);
    default:
      return [];
  }
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
