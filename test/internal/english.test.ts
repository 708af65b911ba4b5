import { describe, expect, test } from 'vitest';
import { en } from 'zod/locales';
import type { z } from 'zod/mini';
import { englishMessage, FORMAT_NOUNS, SIZE_UNITS } from '../../src/internal/english.js';
import { TransactionRangeParams } from '../../src/dealer/transactions.js';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';
import { SiteListParams } from '../../src/provider/account.js';
import * as callbackSchemas from '../../src/webhooks/schemas.js';

const zodEnglish = en().localeError;

class Custom {
  readonly field = 1;
}

// Every issue payorch's schemas can raise, with the variants zod's English words differently.
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
  { code: 'unrecognized_keys', keys: ['a'], input: {} },
  { code: 'unrecognized_keys', keys: ['a', 'b'], input: {} },
  { code: 'invalid_union', errors: [], input: 1 },
  { code: 'custom', input: 1 },
];

describe('payorch words zod issues as zod/locales en does', () => {
  test.each(ISSUES.map((issue) => [issue['code'], issue] as const))('a %s issue reads the same', (_, issue) => {
    const raw = issue as unknown as z.core.$ZodRawIssue;
    expect(englishMessage(raw)).toBe(zodEnglish(raw));
  });
});

/**
 * The schema types and checks whose every issue english.ts words as zod does. Those it words
 * otherwise raise codes it leaves bare (`not_multiple_of`, `invalid_key`, `invalid_element`, a
 * discriminated or exclusive union's words): a schema that adds one must add the words first.
 */
const WORDED_TYPES = ['object', 'string', 'number', 'boolean', 'undefined', 'never', 'unknown', 'array', 'literal', 'enum', 'union', 'optional', 'nullable', 'pipe', 'transform', 'custom'];
const WORDED_CHECKS = ['greater_than', 'less_than', 'min_length', 'max_length', 'length_equals', 'number_format', 'string_format', 'overwrite', 'custom'];

interface Found {
  readonly types: Set<string>;
  readonly checks: Set<string>;
  readonly formats: Set<string>;
  readonly origins: Set<string>;
}

/** The types, checks, string formats and sized types of a schema, its nested schemas included. */
function checkedKinds(schema: z.core.$ZodType, found: Found, seen = new Set<object>()): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown>;
  found.types.add(def['type'] === 'union' && (def['discriminator'] !== undefined || def['inclusive'] === false) ? 'discriminated or exclusive union' : String(def['type']));
  // Number formats (int, safeint) raise invalid_type and too_big, not invalid_format.
  if (def['type'] === 'string' && typeof def['format'] === 'string') found.formats.add(def['format']);
  for (const check of (def['checks'] as { _zod: { def: Record<string, unknown> } }[] | undefined) ?? []) {
    const checkDef = check._zod.def;
    found.checks.add(String(checkDef['check']));
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

test('every type, check, string format and sized type of the SDK schemas is one english.ts words as zod does', () => {
  const found: Found = { types: new Set(), checks: new Set(), formats: new Set(), origins: new Set() };
  const schemas: unknown[] = [
    ...API_ENDPOINTS.flatMap(({ endpoint }) => [endpoint.params, endpoint.response]),
    SiteListParams,
    TransactionRangeParams,
    ...Object.values(callbackSchemas),
  ];
  for (const schema of schemas) if (typeof schema === 'object' && schema !== null && '_zod' in schema) checkedKinds(schema as z.core.$ZodType, found);
  // The walk reaches the checks it must cover: the date range's calendar dates, the IBAN's length.
  expect(found.formats).toContain('date');
  expect(found.origins).toContain('string');
  expect(found.checks).toContain('min_length');
  for (const type of found.types) expect(WORDED_TYPES, `type ${type}`).toContain(type);
  for (const check of found.checks) expect(WORDED_CHECKS, `check ${check}`).toContain(check);
  for (const format of found.formats) expect(Object.keys(FORMAT_NOUNS), `format ${format}`).toContain(format);
  for (const origin of found.origins) expect(Object.keys(SIZE_UNITS), `sized ${origin}`).toContain(origin);
});
