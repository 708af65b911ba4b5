import * as z from 'zod/mini';
// Named imports, not `z.core.…`: reading zod's core namespace at run time keeps all of it in a bundle.
import { $ZodObjectJIT, $constructor } from 'zod/v4/core';
import type { $ZodObject, $ZodObjectDef } from 'zod/v4/core';
import { PROTOTYPE_KEYS } from './prototype-keys.js';

/*
 * Building blocks of the wire schemas, written with `zod/mini` (the same zod core as classic zod,
 * functions instead of methods, a fraction of the bundle: docs/decisions.md). Requests are strict
 * (`z.strictObject`, exact types); answers and callbacks are lenient (`lenientObject`): unknown
 * fields are kept, `null` in an optional field reads as absent, and the plausible variants a
 * server may send (a number as a numeric string, a decimal as a number) are normalised to the
 * documented type.
 */

/**
 * What a lenient building block is on the wire by the spec, and what payorch accepts besides.
 * Metadata only, for the OpenAPI document (src/tools/openapi/document.ts), which shows `spec` as the
 * field's type and writes `tolerates` in prose; parsing never reads it. Kept beside the schema,
 * not in it, and read through a clone's parents, so it survives a clone.
 */
export interface WireType {
  /** JSON Schema of the spec's type; absent when it is the wrapped schema's (the `null` tolerance). */
  readonly spec?: Readonly<Record<string, unknown>>;
  /** What payorch also accepts, in words. */
  readonly tolerates: string;
  /** The spec always sends the field; payorch tolerates its absence. */
  readonly required?: true;
}

const WIRE_TYPES = /* @__PURE__ */ new WeakMap<z.core.$ZodType, WireType>();

/**
 * The `WireType` of each building block. A map read the way zod's registries read theirs (a clone
 * has its parent's entry), rather than `z.registry()`, whose module no call of the SDK needs.
 */
export const wireTypes = {
  get(schema: z.core.$ZodType): WireType | undefined {
    for (let node: z.core.$ZodType | undefined = schema; node !== undefined; node = node._zod.parent) {
      const type = WIRE_TYPES.get(node);
      if (type !== undefined) return type;
    }
    return undefined;
  },
};

/**
 * `build`, called on first use and remembered: the shared building blocks are functions, so that
 * importing payorch builds none of them (each kind of schema costs its first construction most).
 */
// @__NO_SIDE_EFFECTS__
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/** `schema`, registered in `wireTypes`; a function so that bundlers drop an unused building block. */
// @__NO_SIDE_EFFECTS__
function wire<T extends z.core.$ZodType>(schema: T, type: WireType): T {
  WIRE_TYPES.set(schema, type);
  return schema;
}

/** What `lenientObject` makes of a field declared `z.optional(...)`: it also accepts `null`, read as absent. */
export type OptionalOrNull<T extends z.core.SomeType> = z.ZodMiniOptional<z.ZodMiniType<z.output<T> | undefined, z.input<T> | null>>;

const NULL_AS_ABSENT = '`null` in an optional field (read as absent)';

/** The shape `lenientObject` builds from a declared shape (homomorphic, so field JSDoc carries over). */
export type LenientShape<S extends z.core.$ZodShape> = {
  [K in keyof S]: S[K] extends z.ZodMiniOptional<infer T extends z.core.SomeType> ? OptionalOrNull<T> : S[K];
};

/** The object schema of an answer or callback body. */
export type LenientObject<S extends z.core.$ZodShape> = z.ZodMiniObject<LenientShape<S>>;

/**
 * The object of every answer and callback body (docs/decisions.md, "Lenient answers, exact types"):
 * - a field declared `z.optional(...)` is absent, `null` or a value, and `null` reads as absent
 *   (`undefined`), so user code tests one thing;
 * - fields the spec does not list are kept at run time (a new field of the service reaches the
 *   caller), but the type lists exactly the declared fields, so a misspelt field does not compile.
 *   Read an unlisted field through `Record<string, unknown>`:
 *   `const extra: Record<string, unknown> = answer.data; extra['new_field']`;
 * - but never `__proto__`, `constructor` or `prototype` (prototype-keys.ts): the object is plain.
 *
 * Through zod's public API only: each optional field becomes `z.optional(z.nullable(field))`, and
 * one `z.overwrite` step on the object turns the nulls of those fields into `undefined` in the
 * object zod has just built (never the caller's input). Given as a function returning the
 * fields, the fields are built on first use (`deferShape`); the SDK's own objects all are.
 */
// @__NO_SIDE_EFFECTS__
export function lenientObject<const S extends z.core.$ZodShape>(shape: S | (() => S)): LenientObject<S> {
  // Filled when the shape is built, which zod does before it runs the step (the parse reads it).
  let nullable: readonly string[] = [];
  const build = (): z.core.$ZodShape => {
    const lenient: Record<string, z.core.$ZodType> = {};
    const keys: string[] = [];
    for (const [key, field] of Object.entries(typeof shape === 'function' ? shape() : shape)) {
      if (field instanceof z.ZodMiniOptional) {
        lenient[key] = z.optional(wire(z.nullable(field.def.innerType), { tolerates: NULL_AS_ABSENT }));
        keys.push(key);
      } else {
        lenient[key] = field;
      }
    }
    nullable = keys;
    return lenient;
  };
  const nullAsAbsent = (value: Record<string, unknown>): Record<string, unknown> => {
    for (const key of nullable) if (value[key] === null) value[key] = undefined;
    // zod leaves out `__proto__` itself; the other two would reach a caller as fields.
    for (const key of PROTOTYPE_KEYS) if (Object.hasOwn(value, key)) Reflect.deleteProperty(value, key);
    return value;
  };
  // The step goes in the def rather than through `.check()`, whose copy of the def would read (and build) the shape.
  const def = () => deferShape({ type: 'object', catchall: (unknownField ??= z.unknown()), checks: [z.overwrite(nullAsAbsent)] }, build);
  // A loose object at run time, typed as a stripping one: the cast is the whole trick, in one place.
  return initOnFirstUse(fastObject(), def) as unknown as LenientObject<S>;
}

/*
 * The shape types below are the declared shape itself, not a mapped copy of it (zod's own
 * `Writeable<T>`): the declaration emitter prints a mapped type's properties without their doc
 * comments, so the declarations in dist/ would lose every field's doc (test/docs/hover.test.ts).
 */

/**
 * The fields of several blocks in one shape, later ones last, as `{ ...a, ...b }` makes it, but
 * typed as the blocks' intersection: a spread's type is a new anonymous one, which the
 * declarations in dist/ print field by field without the doc comments of fields from another
 * file, where an intersection keeps each named block's name (and so its docs).
 */
export function join<A extends object, B extends object>(a: A, b: B): A & B;
export function join<A extends object, B extends object, C extends object>(a: A, b: B, c: C): A & B & C;
export function join<A extends object, B extends object, C extends object, D extends object>(a: A, b: B, c: C, d: D): A & B & C & D;
// @__NO_SIDE_EFFECTS__
export function join(...parts: readonly object[]): object {
  return Object.assign({}, ...parts) as object;
}

/** A request body: `z.strictObject` whose fields are built on first use; `checks` run on the whole object. */
// @__NO_SIDE_EFFECTS__
export function strictObject<T extends z.core.$ZodShape>(
  shape: () => T,
  ...checks: z.core.$ZodCheck<z.output<z.ZodMiniObject<T, z.core.$strict>>>[]
): z.ZodMiniObject<T, z.core.$strict> {
  const def = () => deferShape({ type: 'object', catchall: (neverField ??= z.never()), checks }, shape);
  return initOnFirstUse(z.ZodMiniObject, def) as z.ZodMiniObject<T, z.core.$strict>;
}

/** `z.object` (unknown fields dropped) whose fields are built on first use. */
// @__NO_SIDE_EFFECTS__
export function object<T extends z.core.$ZodShape>(shape: () => T): z.ZodMiniObject<T> {
  return initOnFirstUse(z.ZodMiniObject, () => deferShape({ type: 'object' }, shape)) as z.ZodMiniObject<T>;
}

// One catch-all schema for every object that needs it, built with the first such object.
let unknownField: z.ZodMiniUnknown | undefined;
let neverField: z.ZodMiniNever | undefined;

/**
 * `def` with a `shape` built on first read, so that importing payorch builds no field schema.
 * zod reads an object's `def.shape` only when it needs the fields (the first parse, `.shape`,
 * JSON Schema, a copy of the def); `$ZodObject` adopts an accessor it did not make as it is. The
 * accessor builds the fields once and puts them in its place on the def it was read from; a copy
 * of the def made before that carries the accessor and gets the same fields.
 */
function deferShape<D extends object>(def: D, build: () => z.core.$ZodLooseShape): D & z.core.$ZodObjectDef {
  let fields: z.core.$ZodLooseShape | undefined;
  Object.defineProperty(def, 'shape', {
    get(this: object) {
      fields ??= build();
      Object.defineProperty(this, 'shape', { value: fields, enumerable: true });
      return fields;
    },
    enumerable: true,
    configurable: true,
  });
  return def as D & z.core.$ZodObjectDef;
}

/**
 * `new Schema(def())`, with zod's work of building the object (its def, internals, checks,
 * prototype methods) done when the object is first touched rather than here. Importing payorch
 * builds a schema for every body of every endpoint; zod's constructor was most of what the import
 * ran (bench/findings.md). The object is the one a caller keeps, so identity (`WeakMap` keys such
 * as the wire types) holds. Until it is touched its prototype is a stand-in of its own: any read,
 * write or `in` that reaches it builds the object, puts the real prototype back and asks again,
 * so no reader can tell.
 */
// @__NO_SIDE_EFFECTS__
export function initOnFirstUse<T extends z.core.$ZodType>(Schema: $constructor<T>, def: () => object): T {
  const prototype = Schema.prototype as object;
  let pending = true;
  const built = (): T => {
    if (pending) {
      pending = false;
      Reflect.deleteProperty(inst, '_zod');
      Object.setPrototypeOf(inst, prototype);
      // zod's constructor run on the object itself: what `new` does, with this object as `this`.
      Reflect.apply(Schema as unknown as (this: T, def: object) => T, inst, [def()]);
    }
    return inst;
  };
  const standIn = new Proxy(prototype, {
    get: (_target, key): unknown => Reflect.get(built(), key),
    set: (_target, key, value): boolean => Reflect.set(built(), key, value),
    has: (_target, key): boolean => Reflect.has(built(), key),
  });
  const inst = Object.create(standIn) as T;
  // `_zod` is what zod and `instanceof` read first: an own accessor, as zod's own is an own property.
  Object.defineProperty(inst, '_zod', { configurable: true, get: (): unknown => built()._zod });
  return inst;
}

let FastObject: $constructor<z.ZodMiniObject> | undefined;

/**
 * `z.looseObject` as classic zod builds it: zod/mini's object parses through the generic loop,
 * classic's through the code it generates once per shape (`$ZodObjectJIT`, which falls back to
 * the loop where a runtime forbids `new Function`), which reads a callback body without walking
 * the shape's keys each time. Assembled from zod's public constructors, the way zod's own classes are, and
 * named `ZodMiniObject` so that it is one (`instanceof`, JSON Schema, composition with any zod).
 * Built on first use, so that importing payorch evaluates nothing a call does not need.
 */
function fastObject(): $constructor<z.ZodMiniObject> {
  FastObject ??= $constructor('ZodMiniObject', (inst: z.ZodMiniObject, def: $ZodObjectDef) => {
    const jit: $constructor<$ZodObject> = $ZodObjectJIT;
    const mini: $constructor<z.ZodMiniType> = z.ZodMiniType;
    jit.init(inst, def);
    mini.init(inst, def);
    // Read when asked, as zod/mini's own object does: reading it here would build the fields.
    Object.defineProperty(inst, 'shape', { get: () => inst._zod.def.shape, enumerable: false });
  });
  return FastObject;
}

/** An amount in a request: a finite JSON number of at least `min` (spec 4.1: minimum 1). */
// @__NO_SIDE_EFFECTS__
export function requestAmount(min: number) {
  return z.number().check(z.minimum(min, { error: `must be at least ${min}` }));
}

/** A required non-empty string in a request. */
// A regex, not trim(): the SDK must send the caller's value unchanged.
// @__NO_SIDE_EFFECTS__
export function requiredString() {
  return z.string().check(z.regex(/\S/, { error: 'is required' }));
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

/** A number in an answer; a numeric string is accepted and converted. */
export const responseNumber = /* @__PURE__ */ once(() =>
  wire(z.union([z.number(), z.pipe(z.string().check(z.trim(), z.regex(NUMERIC)), z.transform(Number))]), {
    spec: { type: 'number' },
    tolerates: 'a number as a numeric string ("250.00")',
  }),
);

/** A string in an answer that a server may send as a number (an id): a number is kept as its text. */
export const responseString = /* @__PURE__ */ once(() =>
  wire(z.union([z.string(), z.pipe(z.number(), z.transform(String))]), { spec: { type: 'string' }, tolerates: 'an id as a number' }),
);

/** An integer in an answer; a numeric string is accepted and converted. */
export const responseInteger = /* @__PURE__ */ once(() =>
  wire(z.union([z.int(), z.pipe(z.string().check(z.trim(), z.regex(/^-?\d+$/)), z.transform(Number))]), {
    spec: { type: 'integer' },
    tolerates: 'an integer as a numeric string ("12")',
  }),
);

/**
 * A decimal in an answer, handed over as a string: the documented decimal string as sent
 * ("1500.00" stays "1500.00"). A JSON number is accepted and becomes `String(value)`: 1500 gives
 * "1500", not "1500.00", because a number carries no scale to restore.
 */
export const responseDecimal = /* @__PURE__ */ once(() =>
  wire(z.union([z.string().check(z.trim(), z.regex(NUMERIC)), z.pipe(z.number(), z.transform((value: number) => String(value)))]), {
    spec: { type: 'string', pattern: NUMERIC.source },
    tolerates: 'a decimal string as a JSON number',
  }),
);

/** A boolean in an answer; 0/1 and "true"/"false" are accepted. */
export const responseBoolean = /* @__PURE__ */ once(() =>
  wire(
    z.union([
      z.boolean(),
      z.pipe(z.literal(1), z.transform(() => true)),
      z.pipe(z.literal(0), z.transform(() => false)),
      z.pipe(z.literal(['true', 'false']), z.transform((value: 'true' | 'false') => value === 'true')),
    ]),
    { spec: { type: 'boolean' }, tolerates: 'a boolean as 1/0 or "true"/"false"' },
  ),
);

/**
 * A string from a known set that the service may extend: typed as the known values plus
 * any string, so that editors suggest the known ones and a new value does not break parsing.
 * The known values stay readable as `options`, like `z.enum`'s.
 */
// @__NO_SIDE_EFFECTS__
export function openEnum<const T extends readonly string[]>(options: T) {
  // `z.custom(isString, { error: 'expected a string' })`, built on first use: its def as zod's `custom` makes it.
  const schema = initOnFirstUse(z.ZodMiniCustom, () => ({ type: 'custom', check: 'custom', fn: isString, error: expectedString, abort: true })) as z.ZodMiniCustom<T[number] | (string & {})>;
  // Defined, not assigned: an assignment would go through the stand-in prototype and build the schema.
  return Object.defineProperty(schema, 'options', { value: options, enumerable: true, writable: true, configurable: true }) as typeof schema & { options: T };
}
const isString = (value: unknown): boolean => typeof value === 'string';
const expectedString = (): string => 'expected a string';

/**
 * `success: true` of every success body (spec 2.1), also as other stacks write it (`"true"`, `1`).
 * Absent is tolerated; a false one (`false`, `"false"`, `0`) never reaches a schema: the transport
 * reports it as a refusal.
 */
export const successFlag = /* @__PURE__ */ once(() =>
  z.optional(
    wire(z.pipe(z.literal([true, 'true', 1]), z.transform((): true => true)), {
      spec: { type: 'boolean', const: true },
      required: true,
      tolerates: '`success` as `"true"` or `1`, or left out',
    }),
  ),
);
