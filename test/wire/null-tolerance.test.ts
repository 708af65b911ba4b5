import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { CALLBACK_KINDS, CALLBACK_STATUSES } from '../../src/callbacks/kinds.js';
import { API_ENDPOINTS } from '../../src/endpoint-table.js';
import { CALLBACK_SCHEMAS } from '../../src/callbacks/schemas.js';
import { signCallback, verifyCallback } from '../../src/index.js';
import { ABSENT, arbitraryOf, optionalFields, valueAt, withFieldAt } from '../helpers/arbitrary.js';

/*
 * Issue 10 §1: every optional field of every answer and callback schema accepts `null` and reads
 * it as absent. The schemas are enumerated from the endpoint table (every route the sandbox
 * serves is one endpoint row of the SDK) and from the callback table, so a new endpoint or
 * callback kind is covered without touching this file.
 */

const endpointRows = API_ENDPOINTS.map((route) => ({ name: `${route.api} ${route.endpoint.method} ${route.endpoint.path}`, schema: route.endpoint.response }));
const callbackRows = CALLBACK_KINDS.map((kind) => ({ name: `${kind} callback`, schema: CALLBACK_SCHEMAS[kind] as z.ZodType }));
const rows = [...endpointRows, ...callbackRows];

describe('the enumeration', () => {
  test('covers the 25 endpoints of spec 4.2 and 4.13 and the 4 callbacks of spec 6, each once', () => {
    expect(new Set(endpointRows.map((row) => row.name)).size).toBe(25);
    expect(callbackRows).toHaveLength(4);
  });

  test('finds optional fields in every answer and callback (a walk that finds none is broken)', () => {
    for (const { name, schema } of rows) expect(optionalFields(schema).length, name).toBeGreaterThan(0);
  });
});

describe.each(rows)('$name', ({ schema }) => {
  const fields = optionalFields(schema);
  const complete = fc.sample(arbitraryOf(schema, 'present'), { numRuns: 1, seed: 42 })[0];

  test.each(fields.map((field) => ({ field: field.path.join('.'), ...field })))('$field parses absent, null (read as absent) and present', ({ path, schema: fieldSchema }) => {
    const absent = schema.safeParse(withFieldAt(complete, path, ABSENT));
    expect(absent.error?.issues).toBeUndefined();
    expect(valueAt(absent.data, path)).toBeUndefined();

    const nulled = schema.safeParse(withFieldAt(complete, path, null));
    expect(nulled.error?.issues).toBeUndefined();
    expect(valueAt(nulled.data, path)).toBeUndefined();
    // Null and absent read the same: one check in user code covers both.
    expect(nulled.data).toEqual(absent.data);

    const value = fc.sample(arbitraryOf(fieldSchema, 'present'), { numRuns: 1, seed: 7 })[0];
    const present = schema.safeParse(withFieldAt(complete, path, value));
    expect(present.error?.issues).toBeUndefined();
    expect(valueAt(present.data, path)).toBeDefined();
  });

  test('any mix of absent, null and present optional fields, and unknown extra fields, parses; extras are kept', () => {
    fc.assert(
      fc.property(arbitraryOf(schema, 'any'), (body) => {
        const result = schema.safeParse(body);
        expect(result.error?.issues).toBeUndefined();
        const extra = (body as Record<string, unknown>)['x_new_field'];
        if (extra !== undefined) expect((result.data as Record<string, unknown>)['x_new_field']).toEqual(extra);
      }),
      { numRuns: 60 },
    );
  });
});

describe('a signed callback with nulls', () => {
  const keys = { apiKey: 'prov_api_4f9a1c', secretKey: 'prov_secret_Zt8qL2mN' };
  const timestamp = 1763812345;
  const trackingCodes = { deposit: 'MAN-a8Xk29Qp-1763812000', withdrawal: 'WIT-7hQ2mZ-1763811111', creditCard: 'CC-p4Lm8-1763812100', dealerCreditCard: 'CC-k3J9x-1763812200' } as const;

  test.each(CALLBACK_KINDS.flatMap((kind) => CALLBACK_STATUSES[kind].map((status) => ({ kind, status }))))(
    'a $kind callback with status $status and every optional field null verifies, the nulls read as absent',
    ({ kind, status }) => {
      const schema: z.ZodType = CALLBACK_SCHEMAS[kind];
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
