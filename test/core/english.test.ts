import { describe, expect, test } from 'vitest';
import { en } from 'zod/locales';
import type { z } from 'zod/mini';
import { englishMessage, FORMAT_NOUNS, SIZE_UNITS } from '../../src/core/english.js';
import { API_ENDPOINTS } from '../../src/endpoint-table.js';
import * as callbackSchemas from '../../src/webhooks/schemas.js';

const zodEnglish = en().localeError;

class Custom {
  readonly field = 1;
}

// Every issue code zod raises, with the variants its English words differently.
// Plain records: zod's issue types would ask for every member each code may carry.
const ISSUES: readonly Record<string, unknown>[] = [
  ...[1, Number.NaN, Number.POSITIVE_INFINITY, 'x', true, null, undefined, [], {}, new Custom(), Object.create(null) as object, 10n].map(
    (input) => ({ code: 'invalid_type', expected: 'string', input }),
  ),
  { code: 'invalid_type', expected: 'nan', input: 1 },
  { code: 'invalid_type', expected: 'int', input: 1.5 },
  { code: 'invalid_value', values: ['a'], input: 'b' },
  { code: 'invalid_value', values: [1, true, null, 2n, 'x'], input: 'b' },
  ...[true, false, undefined].flatMap((inclusive) =>
    [true, false].flatMap((exact) =>
      [...Object.keys(SIZE_UNITS), 'number', 'date', undefined].flatMap((origin) => [
        { code: 'too_big', maximum: 34, inclusive, exact, origin, input: 1 },
        { code: 'too_small', minimum: 15, inclusive, exact, origin, input: 1 },
      ]),
    ),
  ),
  ...[...Object.keys(FORMAT_NOUNS), 'unlisted_format'].map((format) => ({ code: 'invalid_format', format, input: 'x' })),
  { code: 'invalid_format', format: 'regex', pattern: '/\\S/', input: ' ' },
  { code: 'invalid_format', format: 'starts_with', prefix: 'TR', input: 'x' },
  { code: 'invalid_format', format: 'ends_with', suffix: 'Z', input: 'x' },
  { code: 'invalid_format', format: 'includes', includes: '-', input: 'x' },
  { code: 'not_multiple_of', divisor: 5, input: 7 },
  { code: 'unrecognized_keys', keys: ['a'], input: {} },
  { code: 'unrecognized_keys', keys: ['a', 'b'], input: {} },
  { code: 'invalid_key', origin: 'record', issues: [], input: {} },
  { code: 'invalid_union', errors: [], input: 1 },
  { code: 'invalid_union', errors: [], inclusive: false, input: 1 },
  { code: 'invalid_union', errors: [], options: ['a', 'b'], input: 1 },
  { code: 'invalid_element', origin: 'map', key: 'k', issues: [], input: new Map() },
  { code: 'custom', input: 1 },
];

describe('payorch words zod issues as zod/locales en does', () => {
  test.each(ISSUES.map((issue) => [issue['code'], issue] as const))('a %s issue reads the same', (_, issue) => {
    const raw = issue as unknown as z.core.$ZodRawIssue;
    expect(englishMessage(raw)).toBe(zodEnglish(raw));
  });
});

/** The string formats and sized types a schema checks, its nested schemas included. */
function checkedKinds(schema: z.core.$ZodType, found: { formats: Set<string>; origins: Set<string> }, seen = new Set<object>()): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown>;
  // Number formats (int, safeint) raise invalid_type and too_big, not invalid_format.
  if (def['type'] === 'string' && typeof def['format'] === 'string') found.formats.add(def['format']);
  for (const check of (def['checks'] as { _zod: { def: Record<string, unknown> } }[] | undefined) ?? []) {
    const checkDef = check._zod.def;
    if (checkDef['check'] === 'string_format' && typeof checkDef['format'] === 'string') found.formats.add(checkDef['format']);
    if (['min_length', 'max_length', 'length_equals', 'size_greater_than', 'size_less_than', 'size_equals'].includes(String(checkDef['check']))) found.origins.add(String(def['type']));
  }
  const children = [def['shape'], def['innerType'], def['in'], def['out'], def['element'], def['options'], def['catchall']];
  for (const child of children) {
    if (child === undefined) continue;
    const list: unknown[] = Array.isArray(child) ? child : typeof child === 'object' && child !== null && !('_zod' in child) ? Object.values(child) : [child];
    for (const entry of list) if (typeof entry === 'object' && entry !== null && '_zod' in entry) checkedKinds(entry as z.core.$ZodType, found, seen);
  }
}

test('every string format and sized type the SDK schemas check is one english.ts words as zod does', () => {
  const found = { formats: new Set<string>(), origins: new Set<string>() };
  const schemas: unknown[] = [...API_ENDPOINTS.flatMap(({ endpoint }) => [endpoint.params, endpoint.response]), ...Object.values(callbackSchemas)];
  for (const schema of schemas) if (typeof schema === 'object' && schema !== null && '_zod' in schema) checkedKinds(schema as z.core.$ZodType, found);
  // The walk reaches the checks it must cover: the date range's calendar dates, the IBAN's length.
  expect(found.formats).toContain('date');
  expect(found.origins).toContain('string');
  for (const format of found.formats) expect(Object.keys(FORMAT_NOUNS), `format ${format}`).toContain(format);
  for (const origin of found.origins) expect(Object.keys(SIZE_UNITS), `sized ${origin}`).toContain(origin);
});
