import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { APIError, PayorchError, ProviderClient, RequestValidationError } from '../../src/index.js';
import { PROVIDER_CALLS } from '../helpers/provider-calls.js';
import type { ProviderCall } from '../helpers/provider-calls.js';
import { noBackoff } from '../helpers/loopback.js';
import { BASE_URL, PROVIDER } from '../helpers/wire.js';

// No sockets here: the client's `fetch` option is the wire, so thousands of calls stay fast.

interface Sent {
  readonly method: string;
  readonly headers: Headers;
  readonly body: string;
}

function clientWith(answer: () => Response, sent: Sent[]): ProviderClient {
  return new ProviderClient({
    baseUrl: BASE_URL,
    ...PROVIDER,
    maxRetries: 1,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({ method: request.method, headers: request.headers, body: await request.text() });
      return answer();
    },
  });
}

/** Objects near the valid input (its keys with any values, some missing, some extra) and anything at all. */
function inputsFor(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const field = (value: unknown) => fc.oneof(fc.constant(value), fc.anything(), fc.string(), fc.double(), fc.integer(), fc.constant(undefined));
  const near = fc.record(Object.fromEntries(Object.entries(valid).map(([key, value]) => [key, field(value)])), { requiredKeys: [] });
  const withExtra = fc.tuple(near, fc.dictionary(fc.string({ maxLength: 12 }), fc.anything(), { maxKeys: 2 })).map(([base, extra]) => ({ ...extra, ...base }));
  return fc.oneof(fc.constant(valid), near, withExtra, fc.anything(), fc.object(), fc.constantFrom(null, undefined, 0, '', [], 'text', [valid]));
}

/** What the client should send for `input`: the card payment fills credential_key from the client. */
function effectiveInput(call: ProviderCall, input: unknown): unknown {
  if (call.endpoint.operation !== 'creditCard.createPayment') return input;
  const record = { ...(input as object) } as Record<string, unknown>;
  return { ...record, credential_key: record.credential_key ?? PROVIDER.credentialKey };
}

// Printable Latin-1 with no line break, and no space or tab at either end (fetch would strip it).
const HEADER_SAFE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

const WITH_PARAMS = PROVIDER_CALLS.filter((call) => call.valid !== undefined);

describe('any input to any provider call', () => {
  test.each(WITH_PARAMS.map((call) => [call.endpoint.operation, call] as const))('%s: is sent exactly as its schema allows, or refused with nothing sent', async (_operation, call) => {
    await fc.assert(
      fc.asyncProperty(inputsFor(call.valid!), async (input) => {
        const sent: Sent[] = [];
        const client = clientWith(() => Response.json({ success: false, error: 'refused by the test' }, { status: 400 }), sent);
        const outcome = await call.invoke(client, input as never, { credentialKey: PROVIDER.credentialKey }).then(
          () => undefined,
          (error: unknown) => error,
        );
        // listSites validates its own parameters (the key travels as X-Key), the others their body.
        const schema: z.ZodType = call.endpoint.operation === 'listSites' ? (await import('../../src/provider/account.js')).SiteListParams : call.endpoint.params;
        const expected = schema.safeParse(effectiveInput(call, input));
        // The X-Key travels in a header, which must carry it unchanged (checked here independently).
        const headerSafe = call.endpoint.operation !== 'listSites' || !expected.success || HEADER_SAFE.test((expected.data as { key: string }).key);
        if (!expected.success || !headerSafe) {
          expect(outcome).toBeInstanceOf(RequestValidationError);
          expect(sent).toHaveLength(0);
          return;
        }
        expect(outcome).toBeInstanceOf(APIError);
        expect(sent).toHaveLength(1);
        if (call.endpoint.operation === 'listSites') {
          expect(sent[0]!.headers.get('x-key')).toBe((expected.data as { key: string }).key);
          expect(sent[0]!.body).toBe('');
        } else {
          expect(sent[0]!.body).toBe(JSON.stringify(expected.data));
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 150), examples: call.endpoint.operation === 'listSites' ? [[{ key: ' ' }], [{ key: 'k\n' }], [{ key: 'ключ' }]] : [] },
    );
  });
});

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** Any answer: any status, any bytes (often JSON-like), and the headers the transport reads. */
const answers = fc.record({
  status: fc.integer({ min: 200, max: 599 }),
  body: fc.oneof(
    fc.uint8Array({ maxLength: 512 }),
    fc.json().map((text) => new TextEncoder().encode(text)),
    fc.jsonValue().map((value) => new TextEncoder().encode(JSON.stringify({ success: true, data: value }))),
    fc.constantFrom('', '{"success":false}', '{"success":true}', '<html>502</html>', '{"success":true,"data":{"tracking_code":1}}').map((text) => new TextEncoder().encode(text)),
  ),
  headers: fc.record(
    {
      'content-type': fc.constantFrom('application/json', 'text/html', 'application/octet-stream'),
      date: fc.date({ noInvalidDate: true }).map((date) => date.toUTCString()),
      'retry-after': fc.constantFrom('0', '', 'soon', '-1', '99999'),
      'content-length': fc.constantFrom('0', '12', 'abc', '99999999999'),
      location: fc.webUrl(),
    },
    { requiredKeys: [] },
  ),
});

describe('any answer to any provider call', () => {
  test.each(PROVIDER_CALLS.map((call) => [call.endpoint.operation, call] as const))('%s: gives a result or a PayorchError, never anything else', async (_operation, call) => {
    noBackoff();
    await fc.assert(
      fc.asyncProperty(answers, async (answer) => {
        const sent: Sent[] = [];
        const client = clientWith(() => new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers }), sent);
        const outcome = await call.invoke(client, call.valid as never, { credentialKey: PROVIDER.credentialKey }).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (outcome !== undefined) expect(outcome).toBeInstanceOf(PayorchError);
        expect(sent.length).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 150) },
    );
  });
});
