import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod/mini';
import { CALLBACK_FIELDS, DEPOSIT_CALLBACK_FIELDS, UNKNOWN_CALLBACK_FIELDS } from '../../src/webhooks/payload.js';
import type { FieldTable, FieldType } from '../../src/webhooks/payload.js';
import { readPayload } from '../../src/webhooks/payload.js';
import { CALLBACK_SCHEMAS, UnknownCallback } from '../../src/webhooks/schemas.js';

/*
 * verifyCallback reads a body by its field table, without zod (src/webhooks/payload.ts, `readPayload`);
 * the exported schemas are made from the same tables. Property: on any body, with any mix of
 * the documented types, their plausible variants and wrong types, the reader accepts exactly
 * what the kind's schema accepts and returns the same object, keys in the same order.
 */

// Every table verification reads, each with the schema of its kind: a new kind is covered here.
const KINDS: readonly { name: string; fields: FieldTable; schema: z.ZodMiniType }[] = Object.entries(CALLBACK_FIELDS).map(([name, fields]) => ({
  name,
  fields,
  schema: name === 'unknown' ? UnknownCallback : CALLBACK_SCHEMAS[name as keyof typeof CALLBACK_SCHEMAS],
}));

// Every value a field may meet: each type's documented form, the variants of other stacks, and
// what no field takes. Numbers include non-integers, unsafe integers and -0.
// Values at the edge of some type, where a reader and a schema most easily part.
const nearMiss = fc.constantFrom<unknown>(
  ...['250.00', ' 12 ', '-3', '1e3', '', 'true', 'false', 'yes', 'TRUE', '1', '0', '0x10', '12.', '.5'],
  ...[0, 1, -0, 2, 2 ** 53, 1.5, Number.MAX_SAFE_INTEGER, Infinity, -Infinity, Number.NaN],
);
const anyValue = fc.oneof(
  fc.string({ maxLength: 6 }),
  nearMiss,
  fc.double({ noNaN: false }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constantFrom([], {}, [1], { a: 1 }),
);

// Each type's documented form and its variants, so that most bodies are readable and the
// property compares outputs, not only refusals.
const VALID: Record<FieldType, fc.Arbitrary<unknown>> = {
  text: fc.string({ maxLength: 6 }),
  status: fc.constantFrom('completed', 'failed', 'success', 'new_word'),
  id: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  number: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer().map(String), fc.constantFrom('250.00', ' 7.5', '-0.01')),
  integer: fc.oneof(fc.integer(), fc.integer().map((value) => ` ${value} `)),
  boolean: fc.constantFrom(true, false, 1, 0, 'true', 'false'),
};

function bodyOf(fields: FieldTable): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = { x_extra: anyValue, new_field: fc.jsonValue() };
  for (const [key, field] of Object.entries(fields)) {
    model[key] = fc.oneof({ weight: 6, arbitrary: VALID[field.type] }, { weight: 2, arbitrary: nearMiss }, { weight: 1, arbitrary: anyValue });
  }
  const record = fc.record(model, { requiredKeys: Object.keys(fields).filter((key) => fields[key]?.optional !== true) });
  // Some bodies also carry prototype keys as own fields, as JSON.parse makes them.
  return fc.tuple(record, fc.subarray(PROTOTYPE_KEYS), anyValue).map(([body, keys, value]) => {
    for (const key of keys) Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
    return body;
  });
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

describe.each(KINDS)('the $name callback', ({ fields, schema }) => {
  test('is read by its table exactly as its schema parses it', () => {
    const outcomes = new Set<boolean>();
    let protoSeen = false;
    fc.assert(
      fc.property(bodyOf(fields), (body) => {
        const byTable = readPayload(fields, body);
        const bySchema = schema.safeParse(body);
        outcomes.add(bySchema.success);
        expect(byTable.success).toBe(bySchema.success);
        if (byTable.success && bySchema.success) {
          expect(byTable.data).toStrictEqual(bySchema.data);
          expect(Object.keys(byTable.data)).toEqual(Object.keys(bySchema.data as object));
          // Both give a plain object without the prototype keys, whatever the body carried.
          for (const data of [byTable.data, bySchema.data as object]) {
            expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
            expect(Object.getOwnPropertyNames(data).filter((key) => PROTOTYPE_KEYS.includes(key))).toEqual([]);
          }
          if (Object.hasOwn(body, '__proto__')) protoSeen = true;
        }
        if (!byTable.success && !bySchema.success) {
          expect(byTable.issues.map((issue) => issue.field).sort()).toEqual([...new Set(bySchema.error.issues.map((issue) => String(issue.path[0])))].sort());
        }
      }),
      { numRuns: 400 },
    );
    // Both sides of the property ran: readable bodies and refused ones.
    expect(outcomes).toEqual(new Set([true, false]));
    expect(protoSeen).toBe(true);
  });
});

describe('readPayload', () => {
  test('names each field it cannot read, with what it expected and what came', () => {
    const result = readPayload(DEPOSIT_CALLBACK_FIELDS, { tracking_code: 'MD-1-1', status: 'completed', amount: 'a lot', site_id: 1.5, timestamp: 1, hash: 'h' });
    expect(result).toEqual({
      success: false,
      issues: [
        { field: 'amount', rule: 'invalid_type', message: 'expected a number or a numeric string, got a string' },
        { field: 'site_id', rule: 'invalid_type', message: 'expected an integer or an integer string, got a number' },
      ],
    });
  });

  test('takes a given value in place of the body\'s, unread', () => {
    const result = readPayload(UNKNOWN_CALLBACK_FIELDS, { tracking_code: 'NEW-1-1', status: 'done', timestamp: 'not seconds' }, { timestamp: 1_700_000_000, hash: 'verified' });
    expect(result).toEqual({ success: true, data: { tracking_code: 'NEW-1-1', status: 'done', timestamp: 1_700_000_000, hash: 'verified' } });
  });

  test('drops own __proto__, constructor and prototype fields, and leaves the body as it was', () => {
    const body = JSON.parse('{"tracking_code":"NEW-1-1","status":"done","timestamp":1,"hash":"h","__proto__":{"polluted":true},"constructor":{"x":1},"prototype":2,"note":"kept"}') as Record<string, unknown>;
    const result = readPayload(UNKNOWN_CALLBACK_FIELDS, body);
    expect(result).toStrictEqual({ success: true, data: { tracking_code: 'NEW-1-1', status: 'done', timestamp: 1, hash: 'h', note: 'kept' } });
    if (!result.success) return;
    expect(Object.getPrototypeOf(result.data)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(result.data)).toEqual(['tracking_code', 'status', 'timestamp', 'hash', 'note']);
    expect(Object.getOwnPropertyNames(body)).toContain('__proto__');
  });
});
