import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type * as z from 'zod/mini';
import { CALLBACK_KINDS, CALLBACK_STATUSES, isCallbackKind } from '../../src/webhooks/kinds.js';
import { API_ENDPOINTS } from '../../src/tools/registry/index.js';
import { CALLBACK_SCHEMAS } from '../../src/webhooks/schemas.js';
import { verifyCallback } from '../../src/index.js';
import { optionalFields, valueAt } from '../helpers/arbitrary.js';

/*
 * Answers and callbacks written by hand from the spec (test/fixtures/README.md),
 * not produced by payorch's schemas or sandbox, parse with the SDK's schemas; the signed callbacks
 * verify, with hashes recomputed here with node:crypto rather than payorch's signer.
 */

const fixtures = new URL('../fixtures/', import.meta.url);
const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, fixtures), 'utf8'));
const jsonFiles = (folder: string) => readdirSync(new URL(folder, fixtures)).filter((file) => file.endsWith('.json')).sort();

/** `provider--third-party-bank-start-deposit.variants.json` names POST /third-party/bank/start-deposit of the provider API. */
const endpointKey = (api: string, path: string) => `${api}--${path.slice(1).replaceAll('/', '-')}`;
const schemas = new Map<string, z.ZodMiniType>(API_ENDPOINTS.map((route) => [endpointKey(route.api, route.endpoint.path ?? route.endpoint.fullPath), route.endpoint.response]));

/** Every key of `input` is kept in `output`: nothing the service sends is silently dropped. */
function expectKept(input: unknown, output: unknown, path: string): void {
  if (Array.isArray(input)) {
    expect(Array.isArray(output), path).toBe(true);
    input.forEach((item, index) => { expectKept(item, (output as unknown[])[index], `${path}[${index}]`); });
  } else if (typeof input === 'object' && input !== null) {
    for (const [key, value] of Object.entries(input)) {
      expect(output, `${path}.${key}`).toHaveProperty([key]);
      expectKept(value, (output as Record<string, unknown>)[key], `${path}.${key}`);
    }
  }
}

/** Every optional field the service sent as `null` reads as absent (docs/decisions.md). */
function expectNullsAbsent(schema: z.ZodMiniType, input: unknown, output: unknown, file: string): number {
  let seen = 0;
  for (const { path } of optionalFields(schema)) {
    if (valueAt(input, path) === null) {
      seen++;
      expect(valueAt(output, path), `${file}: ${path.join('.')}`).toBeUndefined();
    }
  }
  return seen;
}

describe('hand-written answers (test/fixtures/answers)', () => {
  const files = jsonFiles('answers/');

  // Each endpoint's spec-typed answer is its registry row's example (test/openapi/conformance.test.ts);
  // the corpus adds what a looser service sends, for the endpoints where it differs.
  test('name only endpoints that exist', () => {
    const named = new Set(files.map((file) => file.split('.')[0]!));
    expect(named.size).toBeGreaterThan(0);
    expect([...named].filter((key) => !schemas.has(key))).toEqual([]);
  });

  test.each(files)('%s parses, keeps every field and reads nulls as absent', (file) => {
    const schema = schemas.get(file.split('.')[0]!)!;
    const body = read(`answers/${file}`);
    const result = schema.safeParse(body);
    expect(result.error?.issues).toBeUndefined();
    expectKept(body, result.data, file);
    const nulls = expectNullsAbsent(schema, body, result.data, file);
    if (file.includes('.nulls.')) expect(nulls, 'a .nulls. fixture holds nulls').toBeGreaterThan(0);
  });

  test('numbers and booleans sent as strings read as the spec types them', () => {
    const manual = schemas.get('provider--start-manual-deposit')!.parse(read('answers/provider--start-manual-deposit.nulls.json'));
    expect(manual).toMatchObject({ data: { amount: 250 } });
    const sites = schemas.get('provider--sites')!.parse(read('answers/provider--sites.variants.json'));
    expect(sites).toMatchObject({ total_sites: 1, sites: [{ id: 7, is_active: true }] });
    const page = schemas.get('dealer--transactions')!.parse(read('answers/dealer--transactions.variants.json'));
    expect(page).toMatchObject({ pagination: { per_page: 100, has_more: false }, transactions: [{ amount: '99.9' }] });
    const card = schemas.get('provider--credit-card-payment')!.parse(read('answers/provider--credit-card-payment.variants.json'));
    expect(card).toMatchObject({ data: { order_id: '884213', amount: 150 } });
  });
});

describe('hand-written callbacks (test/fixtures/callbacks)', () => {
  const files = jsonFiles('callbacks/');
  const secrets = new Map([
    ['prov_api_4f9a1c', 'prov_secret_Zt8qL2mN'],
    ['dealer_api_X1', 'dealer_sëcret_ğüşiöç'],
  ]);

  test('cover every callback kind and status of spec 6', () => {
    const expected = CALLBACK_KINDS.flatMap((kind) => CALLBACK_STATUSES[kind].map((status) => `${kind}.${status}.json`)).sort();
    expect(files).toEqual(expected);
  });

  test.each(files)('%s: its hash is what spec 5.3 gives, it verifies, keeps every field and reads nulls as absent', (file) => {
    const [kind] = file.split('.');
    if (!isCallbackKind(kind)) throw new Error(`${file} does not name a callback kind`);
    const { headers, body } = read(`callbacks/${file}`) as { headers: Record<string, string>; body: Record<string, unknown> };
    const apiKey = headers['X-Api-Key']!;
    const secretKey = secrets.get(apiKey)!;
    const signed = `${apiKey}${secretKey}${String(body['tracking_code'])}${String(body['status'])}${headers['X-Timestamp']!}`;
    const hash = createHash('sha256').update(signed, 'utf8').digest('hex');
    expect(body['hash']).toBe(hash);
    expect(headers['X-Hash']).toBe(hash);

    // The raw text, as a receiver reads it from the socket.
    const now = () => Number(headers['X-Timestamp']) * 1000;
    const callback = verifyCallback({ headers, body: JSON.stringify(body) }, { apiKey, secretKey, kind, now });
    expect(callback.kind).toBe(kind);
    expect(callback.payload.status).toBe(body['status']);
    expect(typeof callback.payload.timestamp).toBe('number');
    expectKept(body, callback.payload, file);
    expectNullsAbsent(CALLBACK_SCHEMAS[kind], body, callback.payload, file);
  });

  test('the deposit fixture signs like the first callback vector of test/fixtures/vectors/signing.json', () => {
    const vectors = read('vectors/signing.json') as { callbacks: { tracking_code: string; status: string; expected: string }[] };
    const { body } = read('callbacks/deposit.completed.json') as { body: Record<string, unknown> };
    const vector = vectors.callbacks.find((entry) => entry.tracking_code === body['tracking_code'] && entry.status === body['status']);
    expect(vector?.expected).toBe(body['hash']);
  });
});
