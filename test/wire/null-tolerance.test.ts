import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type * as z from 'zod/mini';
import { CALLBACK_KINDS, CALLBACK_STATUSES } from '../../src/webhooks/kinds.js';
import { API_ENDPOINTS, endpointPath } from '../../src/tools/registry/index.js';
import { CALLBACK_SCHEMAS } from '../../src/webhooks/schemas.js';
import { signCallback, verifyCallback } from '../../src/index.js';
import { schemaOf } from '../../src/tools/openapi/document.js';
import { arbitraryOf, optionalFields } from '../helpers/arbitrary.js';

/*
 * Every optional field of every answer and callback schema accepts `null` and reads it as absent
 * (`lenientObject`, src/internal/schema-blocks.ts), as one property over all of them. The schemas are
 * enumerated from the endpoint table and from the callback table, so a new endpoint or callback
 * kind is covered without touching this file.
 */

const endpointRows = API_ENDPOINTS.map((route) => ({ name: `${route.api} ${route.endpoint.method} ${endpointPath(route)}`, schema: route.endpoint.response }));
const callbackRows = CALLBACK_KINDS.map((kind) => ({ name: `${kind} callback`, schema: CALLBACK_SCHEMAS[kind] }));
const rows = [...endpointRows, ...callbackRows];

describe('the enumeration', () => {
  test('covers every endpoint of the endpoint table and every callback kind, each once', () => {
    expect(new Set(endpointRows.map((row) => row.name)).size).toBe(API_ENDPOINTS.length);
    expect(new Set(callbackRows.map((row) => row.name)).size).toBe(CALLBACK_KINDS.length);
  });

  // The walk is held to the JSON Schema of the OpenAPI document, read another way: a schema with no
  // optional field is fine, a walk that misses one is not.
  test('finds, in every answer and callback, each optional field the JSON Schema of the document lists, at any depth', () => {
    for (const { name, schema } of rows) {
      // An answer's `success` the document requires (the spec's) while payorch reads it left out too (successFlag).
      const besidesSuccess = (paths: readonly string[]): string[] => paths.filter((path) => path !== 'success').sort();
      expect(besidesSuccess(optionalFields(schema).map((field) => field.path.join('.'))), name).toEqual(besidesSuccess(optionalIn(schemaOf(schema).schema)));
    }
    expect(rows.flatMap(({ schema }) => optionalFields(schema)).length).toBeGreaterThan(0);
  });
});

/** The paths of the properties a JSON Schema leaves out of `required`, in objects and array items (`[]` as `0`). */
function optionalIn(schema: unknown, path: readonly string[] = []): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const { properties = {}, required = [], items } = schema as { properties?: Record<string, unknown>; required?: string[]; items?: unknown };
  return [
    ...Object.entries(properties).flatMap(([key, property]) => [...(required.includes(key) ? [] : [[...path, key].join('.')]), ...optionalIn(property, [...path, key])]),
    ...optionalIn(items, [...path, '0']),
  ];
}

/** `body` without its `null` fields, at any depth; the unknown extras (x_*) keep theirs. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, field]) => field !== null || key.startsWith('x_'))
      .map(([key, field]) => [key, key.startsWith('x_') ? field : withoutNulls(field)]),
  );
}

/** Paths of the `null`s left in a parsed answer outside the unknown extras (x_*). */
function nullsIn(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return value === null ? [path] : [];
  return Object.entries(value).flatMap(([key, field]) => (key.startsWith('x_') ? [] : nullsIn(field, `${path}.${key}`)));
}

// Each schema equally often, whatever the size of its body.
const schemaRow = fc.oneof(...rows.map((row) => arbitraryOf(row.schema, 'any').map((body) => ({ ...row, body }))));

test('every answer and callback schema parses any mix of absent, null and present optional fields; null reads as absent and unknown fields are kept', () => {
  fc.assert(
    fc.property(schemaRow, ({ name, schema, body }) => {
      const result = schema.safeParse(body);
      expect(result.error?.issues, name).toBeUndefined();
      expect(nullsIn(result.data), name).toEqual([]);
      // Null and absent read the same: one check in user code covers both.
      expect(result.data, name).toEqual(schema.parse(withoutNulls(body)));
      const extra = (body as Record<string, unknown>)['x_new_field'];
      if (extra !== undefined) expect((result.data as Record<string, unknown>)['x_new_field'], name).toEqual(extra);
    }),
    { numRuns: 580 },
  );
});

test('the parse never changes its input (the nulls become absent on zod\'s output only)', () => {
  fc.assert(
    fc.property(schemaRow, ({ schema, body }) => {
      const copy = structuredClone(body);
      schema.parse(body);
      expect(body).toEqual(copy);
    }),
    { numRuns: 200 },
  );
});

describe('a signed callback with nulls', () => {
  const keys = { apiKey: 'prov_api_4f9a1c', secretKey: 'prov_secret_Zt8qL2mN' };
  const timestamp = 1763812345;
  const trackingCodes = { deposit: 'MAN-a8Xk29Qp-1763812000', withdrawal: 'WIT-7hQ2mZ-1763811111', creditCard: 'CC-p4Lm8-1763812100', dealerCreditCard: 'CC-k3J9x-1763812200' } as const;

  test.each(CALLBACK_KINDS.flatMap((kind) => CALLBACK_STATUSES[kind].map((status) => ({ kind, status }))))(
    'a $kind callback with status $status and every optional field null verifies, the nulls read as absent',
    ({ kind, status }) => {
      const schema: z.ZodMiniType = CALLBACK_SCHEMAS[kind];
      const base = fc.sample(arbitraryOf(schema, 'present'), { numRuns: 1, seed: 3 })[0] as Record<string, unknown>;
      const nulls: Record<string, null> = {};
      for (const field of optionalFields(schema)) if (field.path.length === 1) nulls[String(field.path[0])] = null;
      const { headers, body } = signCallback({ ...base, ...nulls, tracking_code: trackingCodes[kind], status }, { ...keys, timestamp });
      const callback = verifyCallback({ headers, body }, { ...keys, kind, now: () => timestamp * 1000 });
      expect(callback.kind).toBe(kind);
      expect(callback.payload.status).toBe(status);
      const payload: Readonly<Record<string, unknown>> = callback.payload;
      for (const field of Object.keys(nulls)) expect(payload[field], field).toBeUndefined();
    },
  );
});
