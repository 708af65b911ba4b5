import { readFileSync } from 'node:fs';
import { validate } from '@readme/openapi-parser';
import { describe, expect, test } from 'vitest';
import { CALLBACK_KINDS, CALLBACK_STATUSES } from '../../src/webhooks/kinds.js';
import { API_ENDPOINTS, endpointPath } from '../../src/tools/registry/index.js';
import * as z from 'zod';
import * as zm from 'zod/mini';
import { lenientObject, responseBoolean, responseDecimal, responseInteger, responseNumber, responseString, successFlag } from '../../src/internal/schema-blocks.js';
import { openApiDocument, schemaOf } from '../../src/tools/openapi/document.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
const generated = openApiDocument({ version });

type Schema = { type?: string | string[]; const?: unknown; properties?: Record<string, Schema>; required?: string[]; additionalProperties?: unknown; minimum?: number; minLength?: number; maxLength?: number };
type Operation = { operationId: string; security: Record<string, unknown>[]; requestBody?: { description?: string; content: { 'application/json': { schema: Schema } } }; parameters?: { name: string; in: string; required: boolean }[]; responses: Record<string, { description: string; content?: { 'application/json': { schema: Schema } } }> };
const doc = generated as unknown as { paths: Record<string, Record<string, Operation>>; webhooks: Record<string, { post: Operation }>; components: { securitySchemes: Record<string, { name: string; description: string }> } };
const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
const operation = (id: string): Operation => {
  const found = operations.find((entry) => entry.operationId === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
};
const bodyOf = (id: string): Schema => operation(id).requestBody?.content['application/json'].schema ?? {};

/**
 * Every optional property of every object is `T | null` (the service may send null for what it
 * does not have), every required one is not.
 */
function expectNullableOptionals(schema: Schema, where: string): void {
  const required = new Set(schema.required ?? []);
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const types = ([] as unknown[]).concat(property.type ?? []);
    expect(types.includes('null'), `${where}.${key}`).toBe(!required.has(key));
    expectNullableOptionals(property, `${where}.${key}`);
  }
  const items = (schema as { items?: Schema }).items;
  if (items !== undefined) expectNullableOptionals(items, `${where}[]`);
}

describe('docs/openapi.json', () => {
  test('is what the generator makes today (run npm run build && npm run openapi when this fails)', () => {
    expect(committed, 'docs/openapi.json is stale: run npm run build && npm run openapi').toBe(`${JSON.stringify(generated, null, 2)}\n`);
  });

  test('is a valid OpenAPI 3.1 document for a maintained validator', async () => {
    const result = await validate(structuredClone(JSON.parse(committed) as object) as never);
    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
  });

  test('the validator refuses a broken copy, so the test above can fail', async () => {
    // `in: body` was OpenAPI 2's; 3.x has no such parameter location.
    const broken = JSON.parse(committed) as { paths: Record<string, Record<string, { parameters: { in: string }[] }>> };
    const parameter = broken.paths['/api/dealer/transactions']?.['get']?.parameters[0];
    if (parameter !== undefined) parameter.in = 'body';
    const result = await validate(broken as never);
    expect(result.valid).toBe(false);
  });
});

describe('the generated OpenAPI document', () => {
  test('has the operations of the endpoint table, each with its method, path and a unique operationId', () => {
    expect(operations).toHaveLength(API_ENDPOINTS.length);
    for (const { api, endpoint } of API_ENDPOINTS) {
      expect(doc.paths[endpointPath({ api, endpoint })]?.[endpoint.method.toLowerCase()]?.operationId).toBe(`${api}.${endpoint.operation}`);
    }
  });

  test('requests are strict and answers open', () => {
    for (const entry of operations) {
      const body = entry.requestBody?.content['application/json'].schema;
      if (body !== undefined) expect(body.additionalProperties, entry.operationId).toBe(false);
      expect(entry.responses['200']?.content?.['application/json'].schema.additionalProperties, entry.operationId).toEqual({});
    }
  });

  test('carries the limits of the spec', () => {
    expect(bodyOf('provider.manual.startWithdrawal').properties?.['iban']).toMatchObject({ minLength: 15, maxLength: 34 });
    expect(bodyOf('provider.manual.startDeposit').properties?.['amount']).toMatchObject({ type: 'number', minimum: 1 });
    expect(bodyOf('provider.manual.startDeposit').required).toEqual(['fullname', 'username', 'user_id', 'amount']);
    expect(bodyOf('dealer.creditCard.createPayment').properties?.['amount']).toMatchObject({ minimum: 200 });
    expect(bodyOf('dealer.transfers.send').properties?.['amount']).toMatchObject({ minimum: 10 });
    expect(operation('dealer.transactions.list').parameters?.map(({ name, in: where, required }) => [name, where, required])).toEqual([
      ['wallet_id', 'query', true],
      ['start_date', 'query', true],
      ['end_date', 'query', true],
      ['page', 'query', false],
    ]);
  });

  test('signs each operation with the headers of its hash, and describes the hash rule', () => {
    expect(operation('provider.welcome').security).toEqual([{ ApiKey: [], Hash: [], Timestamp: [] }]);
    expect(operation('provider.sites.list').security).toEqual([{ ApiKey: [], Hash: [], Timestamp: [], Key: [] }]);
    expect(operation('provider.manual.startDeposit').security).toEqual([{ ApiKey: [], Hash: [], Timestamp: [], CredentialKey: [] }]);
    const names = Object.values(doc.components.securitySchemes).map((scheme) => scheme.name);
    expect(names).toEqual(['X-Api-Key', 'X-Hash', 'X-Timestamp', 'X-Key', 'X-Credential-Key', 'X-Hash', 'X-Timestamp']);
    expect(doc.components.securitySchemes['Hash']?.description).toContain('api_key + secret_key + X-Credential-Key + timestamp');
  });

  test('answers failures with the error bodies of section 7 as each API has them: the 7.1 refusals (401, 403) for the Provider API, a 4XX for every operation', () => {
    const shapes = { anyOf: ['ErrorBody', 'ValidationErrorBody', 'CardErrorBody'].map((name) => ({ $ref: `#/components/schemas/${name}` })) };
    for (const { api, endpoint } of API_ENDPOINTS) {
      const { responses } = operation(`${api}.${endpoint.operation}`);
      expect(Object.keys(responses), endpoint.operation).toEqual(api === 'provider' ? ['200', '401', '403', '4XX', 'default'] : ['200', '4XX', 'default']);
      // anyOf: the three shapes of 7.2 overlap, so "exactly one" (oneOf) would refuse every body.
      expect(responses['default']?.content?.['application/json'].schema).toEqual(shapes);
      expect((responses['4XX']?.content?.['application/json'].schema as { anyOf: unknown[] }).anyOf.slice(-3), endpoint.operation).toEqual(shapes.anyOf);
    }
  });

  test.each([
    ['dealer.transactions.list', ['DATE_RANGE_EXCEEDED', 'INVALID_DATE_RANGE', 'WALLET_NOT_ASSIGNED']],
    ['dealer.transfers.send', ['WALLET_NOT_ASSIGNED', 'INSUFFICIENT_BALANCE', 'INVALID_IBAN', 'MIN_AMOUNT_ERROR']],
    ['dealer.settings.get', []],
  ])('%s names the codes spec 7.4 gives it in its 4XX answer: %j', (id, codes) => {
    const refusal = operation(id).responses['4XX']!;
    const schema = refusal.content!['application/json'].schema as { anyOf: { properties?: Record<string, { examples?: string[] }> }[] };
    expect(schema.anyOf[0]?.properties?.['error']?.examples ?? []).toEqual(codes);
    for (const code of codes) expect(refusal.description).toContain(code);
    // The other dealer codes are not this operation's.
    for (const code of ['DATE_RANGE_EXCEEDED', 'INVALID_DATE_RANGE', 'WALLET_NOT_ASSIGNED', 'INSUFFICIENT_BALANCE', 'INVALID_IBAN', 'MIN_AMOUNT_ERROR'].filter((other) => !codes.includes(other))) {
      expect(JSON.stringify(refusal), code).not.toContain(code);
    }
  });

  test('answers and callbacks have the spec types, and say in prose what payorch tolerates besides', () => {
    const answers = operations.map((entry) => [entry.operationId, entry.responses['200']!] as const);
    const callbacks = Object.entries(doc.webhooks).map(([kind, { post }]) => [kind, { description: post.requestBody!.description!, content: post.requestBody!.content }] as const);
    for (const [name, { description, content }] of [...answers, ...callbacks]) {
      const text = JSON.stringify(content?.['application/json'].schema);
      // No union of what payorch parses (string | number) is left in a schema; null is, where the service sends it.
      expect(text, name).not.toMatch(/"anyOf"|"oneOf"/);
      expectNullableOptionals(content!['application/json'].schema, name);
      expect(description, name).toContain('payorch also accepts, and normalises to it: fields the spec does not list');
    }
    const answer = (id: string) => operation(id).responses['200']!.content!['application/json'].schema;
    for (const { operationId } of operations) expect(answer(operationId).required, `${operationId}: give its answer schema success: successFlag() (every success of the spec carries it)`).toContain('success');
    expect(answer('provider.welcome').properties?.['success']).toEqual({ type: 'boolean', const: true });
    expect(answer('provider.manual.startDeposit').properties?.['data']?.properties?.['amount']).toEqual({ type: 'number' });
    expect(answer('provider.sites.list').properties?.['sites']).toMatchObject({ items: { properties: { id: { type: 'integer' }, is_active: { type: 'boolean' } } } });
    expect(answer('dealer.eibans.list').properties?.['eibans']).toMatchObject({ items: { properties: { balance: { type: 'string' }, available_balance: { type: 'string' } } } });
    expect(operation('provider.manual.startDeposit').responses['200']?.description).toContain('a number as a numeric string ("250.00")');
    expect(operation('dealer.eibans.list').responses['200']?.description).toContain('a decimal string as a JSON number');
  });

  test('has the four callbacks as webhooks, signed per spec 5.3', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...CALLBACK_KINDS]);
    const deposit = doc.webhooks['deposit']!.post;
    for (const { post } of Object.values(doc.webhooks)) expect(post.security).toEqual([{ ApiKey: [], CallbackHash: [], CallbackTimestamp: [] }]);
    expect(doc.components.securitySchemes['CallbackHash']?.description).toContain('api_key + secret_key + tracking_code + status + timestamp');
    const body = deposit.requestBody!.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['tracking_code', 'status', 'amount', 'timestamp', 'hash']));
    expect(body.additionalProperties).toEqual({});
    expect(body.properties?.['amount']).toEqual({ type: 'number' });
    expect(body.properties?.['timestamp']).toEqual({ type: 'integer' });
  });

  test('open sets of values (statuses) are strings with their known values as examples, not enums', () => {
    const deposit = doc.webhooks['deposit']!.post.requestBody!.content['application/json'].schema;
    expect(deposit.properties?.['status']).toMatchObject({ type: 'string', examples: [...CALLBACK_STATUSES.deposit] });
    expect(doc.webhooks['creditCard']!.post.requestBody!.content['application/json'].schema.properties?.['status']).toMatchObject({ examples: [...CALLBACK_STATUSES.creditCard] });
    const answer = operation('provider.manual.startDeposit').responses['200']?.content?.['application/json'].schema;
    expect(answer?.properties?.['data']?.properties?.['status']).toMatchObject({ type: 'string', examples: expect.arrayContaining(['showing']) as unknown });
  });

  test('has no dealer card status query: spec 2.7 says the card tracking_code is for status queries, and 4.13 lists no such endpoint', () => {
    const dealerOperations = API_ENDPOINTS.filter(({ api }) => api === 'dealer').map((row) => `${row.endpoint.method} ${endpointPath(row)} ${row.endpoint.operation}`);
    expect(dealerOperations.filter((entry) => /credit-card|creditCard/.test(entry))).toEqual(['POST /api/dealer/credit-card/payment creditCard.createPayment']);
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/api/dealer/') && path.includes('status'))).toEqual(['/api/dealer/transfer-status']);
  });

  test('notes the choices payorch makes where the spec says "not shown"', () => {
    expect(JSON.stringify(operation('provider.creditCard.getStatus'))).toContain('Not shown in the spec (5.1 rule 5): Hash of /credit-card/status');
    expect(JSON.stringify(operation('provider.thirdParty.crypto.startDeposit'))).toContain('Not shown in the spec (4.1): Body of the crypto and wallet start-deposit');
    expect(JSON.stringify(operation('dealer.settings.get'))).toContain('Not shown in the spec (4.13): Method of /settings and /eibans');
  });
});

describe('the spec type of a lenient building block', () => {
  test('survives z.describe() and z.meta() on a field, optional fields and nesting, and keeps the description', () => {
    const converted = schemaOf(
      lenientObject({
        success: successFlag(),
        amount: responseNumber().check(zm.describe('Amount in TRY.')),
        id: zm.optional(responseInteger().check(zm.meta({ description: 'Record id.' }))),
        balance: responseDecimal(),
        active: zm.optional(responseBoolean()),
        nested: zm.optional(lenientObject({ code: zm.optional(responseString().check(zm.describe('Code.'))) })),
      }),
    );
    expect(converted.schema).toEqual({
      type: 'object',
      properties: {
        success: { type: 'boolean', const: true },
        amount: { type: 'number', description: 'Amount in TRY.' },
        id: { type: ['integer', 'null'], description: 'Record id.' },
        balance: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
        active: { type: ['boolean', 'null'] },
        nested: { type: ['object', 'null'], properties: { code: { type: ['string', 'null'], description: 'Code.' } }, additionalProperties: {} },
      },
      required: ['success', 'amount', 'balance'],
      additionalProperties: {},
    });
    expect([...converted.tolerates].sort()).toEqual(
      ['`null` in an optional field (read as absent)', '`success` as `"true"` or `1`, or left out', 'a boolean as 1/0 or "true"/"false"', 'a decimal string as a JSON number', 'a number as a numeric string ("250.00")', 'an id as a number', 'an integer as a numeric string ("12")'].sort(),
    );
  });

  test('leaves a schema without a registered type as zod writes it', () => {
    expect(schemaOf(z.strictObject({ amount: z.number().min(1), note: z.string().optional() })).schema).toEqual({
      type: 'object',
      properties: { amount: { type: 'number', minimum: 1 }, note: { type: 'string' } },
      required: ['amount'],
      additionalProperties: false,
    });
  });
});

