import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as z from 'zod/mini';
import { CALLBACK_KINDS } from '../../src/webhooks/kinds.js';
import { CALLBACK_SCHEMAS } from '../../src/webhooks/schemas.js';
import { lenientObject, object, strictObject } from '../../src/internal/schema-blocks.js';
import { API_ENDPOINTS, endpointPath } from '../../src/tools/registry/index.js';
import { arbitraryOf } from '../helpers/arbitrary.js';

/*
 * lenientObject parses through zod's generated object parser (src/internal/schema-blocks.ts, fastObject);
 * zod/mini's own `z.looseObject` parses through the generic loop. Both must give the same
 * outcome on any input: the same data, or the same issues. The twin is built from the very shape
 * and checks of each answer and callback schema, so only the object's parse differs.
 */

const rows = [
  ...API_ENDPOINTS.map((route) => ({ name: `${route.api} ${endpointPath(route)}`, schema: route.endpoint.response })),
  ...CALLBACK_KINDS.map((kind) => ({ name: `${kind} callback`, schema: CALLBACK_SCHEMAS[kind] })),
];

const fieldValue = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom('12', ' 3.50 ', '-7', 'true', 'false', '1', 'ok'),
  fc.anything(),
);

function bodiesOf(schema: z.core.$ZodType): fc.Arbitrary<unknown> {
  const keys = Object.keys((schema as z.ZodMiniObject).def.shape);
  const edits = fc.dictionary(fc.constantFrom(...keys, 'x_extra', '__proto__', 'constructor'), fieldValue, { maxKeys: 4 });
  return fc.oneof(
    fc.tuple(arbitraryOf(schema, 'any'), edits).map(([body, edit]) => (typeof body === 'object' && body !== null ? { ...body, ...edit } : body)),
    arbitraryOf(schema, 'any'),
    fc.anything(),
  );
}

function outcome(result: ReturnType<typeof z.safeParse>): unknown {
  return result.success ? { data: result.data } : { issues: result.error.issues };
}

describe('lenientObject', () => {
  test.each(rows)('$name: parses any input exactly as zod/mini\'s looseObject with the same shape and checks', ({ schema }) => {
    const object = schema as unknown as z.ZodMiniObject;
    expect(object).toBeInstanceOf(z.ZodMiniObject);
    const checks = (object.def.checks ?? []) as unknown as readonly z.core.$ZodCheck<Record<string, unknown>>[];
    const twin = z.looseObject(object.def.shape).check(...checks);
    fc.assert(
      fc.property(bodiesOf(schema), (input) => {
        expect(outcome(z.safeParse(object, structuredClone(input)))).toEqual(outcome(z.safeParse(twin, structuredClone(input))));
      }),
      { numRuns: 150 },
    );
  });
});

describe('the fields of an object given as a function', () => {
  test('are built on its first parse or shape read, once, and the object parses as one given its fields', () => {
    let builds = 0;
    const fields = () => {
      builds += 1;
      return { id: z.string(), note: z.optional(z.string()) };
    };
    const deferred = lenientObject(fields);
    const wrapped = z.array(z.optional(deferred));
    expect(builds).toBe(0);
    const body = { id: 'a', note: null, unknown_field: 1 };
    expect(wrapped.parse([body])).toEqual([lenientObject(fields()).parse(body)]);
    expect(builds).toBe(2);
    expect(Object.keys(deferred.shape)).toEqual(['id', 'note']);
    // zod reads the fields to check that an extension adds new keys: they are the ones built.
    const extended = z.extend(deferred, { added: z.optional(z.number()) });
    expect(extended.parse({ ...body, added: 2 })).toEqual({ id: 'a', note: undefined, unknown_field: 1, added: 2 });
    expect(extended.shape.id).toBe(deferred.shape.id);
    expect(builds).toBe(2);
  });

  test.each([
    ['strictObject', strictObject, { success: false }],
    ['object', object, { success: true, data: { id: 'a' } }],
  ] as const)('%s builds them on first use and keeps zod\'s rule for unknown fields', (_name, make, outcome) => {
    let builds = 0;
    const schema = make(() => {
      builds += 1;
      return { id: z.string() };
    });
    expect(builds).toBe(0);
    expect(z.safeParse(schema, { id: 'a', other: 1 })).toMatchObject(outcome);
    expect(builds).toBe(1);
  });
});
