import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type * as z from 'zod/mini';
import { APIError, DealerClient, PayorchError, ProviderClient, RequestValidationError } from '../../../src/index.js';
import { SiteListParams } from '../../../src/provider/account.js';
import { DEALER_CALLS, PROVIDER_CALLS } from '../../helpers/api-calls.js';
import type { ApiCall } from '../../helpers/api-calls.js';
import { noBackoff } from '../../helpers/loopback.js';
import { BASE_URL, DEALER, PROVIDER } from '../../helpers/wire.js';

// No sockets here: the client's `fetch` option is the wire, so thousands of calls stay fast.

interface Sent {
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string;
}

/** One call of either client, made through a fetch that records what it is given. */
interface Subject {
  readonly name: string;
  readonly call: ApiCall<never>;
  run(input: unknown, answer: () => Response, sent: Sent[]): Promise<unknown>;
}

function recordingFetch(answer: () => Response, sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    sent.push({ url: new URL(request.url), headers: request.headers, body: await request.text() });
    return answer();
  };
}

const subjects: Subject[] = [
  ...PROVIDER_CALLS.map((call) => ({
    name: call.id,
    call: call,
    run: (input: unknown, answer: () => Response, sent: Sent[]) =>
      call.invoke(new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, maxRetries: 1, fetch: recordingFetch(answer, sent) }), input as never, {
        credentialKey: PROVIDER.credentialKey,
      }),
  })),
  ...DEALER_CALLS.map((call) => ({
    name: call.id,
    call: call,
    run: (input: unknown, answer: () => Response, sent: Sent[]) =>
      call.invoke(new DealerClient({ baseUrl: BASE_URL, ...DEALER, maxRetries: 1, fetch: recordingFetch(answer, sent) }), input as never),
  })),
];

/** Objects near the valid input (its keys with any values, some missing, some extra) and anything at all. */
function inputsFor(valid: Record<string, unknown>): fc.Arbitrary<unknown> {
  const field = (value: unknown) => fc.oneof(fc.constant(value), fc.anything(), fc.string(), fc.double(), fc.integer(), fc.constant(undefined));
  const near = fc.record(Object.fromEntries(Object.entries(valid).map(([key, value]) => [key, field(value)])), { requiredKeys: [] });
  const withExtra = fc.tuple(near, fc.dictionary(fc.string({ maxLength: 12 }), fc.anything(), { maxKeys: 2 })).map(([base, extra]) => ({ ...extra, ...base }));
  return fc.oneof(fc.constant(valid), near, withExtra, fc.anything(), fc.object(), fc.constantFrom(null, undefined, 0, '', [], 'text', [valid]));
}

/** A call signed with the key hash: its key travels as X-Key, not in the body (the site list). */
const takesKey = (subject: Subject): boolean => subject.call.endpoint.hash === 'key';
/** A call whose body carries the site credential key, which the client fills when left out (the provider card payment). */
const fillsCredentialKey = (subject: Subject): boolean => subject.call.row.api === 'provider' && subject.call.valid !== undefined && !('credential_key' in subject.call.valid) && subject.call.endpoint.params.safeParse({ ...subject.call.valid, credential_key: 'k' }).success;

/** The schema a call's input must pass, and the input as the client completes it. */
function oracle(subject: Subject, input: unknown): { schema: z.ZodMiniType; effective: unknown } {
  // listSites checks its own parameters: the key travels as X-Key, not in the body.
  if (takesKey(subject)) return { schema: SiteListParams, effective: input };
  if (fillsCredentialKey(subject) && typeof input === 'object' && input !== null) {
    // The provider card payment takes the client's credential key when the body has none.
    const record = input as Record<string, unknown>;
    return { schema: subject.call.endpoint.params, effective: { ...record, credential_key: record.credential_key ?? PROVIDER.credentialKey } };
  }
  return { schema: subject.call.endpoint.params, effective: input };
}

// Printable Latin-1 with no line break, and no space or tab at either end (fetch would strip it).
const HEADER_SAFE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

const examples = (subject: Subject): unknown[][] =>
  takesKey(subject) ? [[{ key: ' ' }], [{ key: 'k\n' }], [{ key: 'ключ' }]] : fillsCredentialKey(subject) ? [[null], [undefined], ['text']] : [];

describe('any input to any call', () => {
  const withParams = subjects.filter((subject) => subject.call.valid !== undefined);
  test.each(withParams.map((subject) => [subject.name, subject] as const))('%s: is sent exactly as its schema allows, or refused with nothing sent', async (_name, subject) => {
    await fc.assert(
      fc.asyncProperty(inputsFor(subject.call.valid!), async (input) => {
        const sent: Sent[] = [];
        const outcome = await subject.run(input, () => Response.json({ success: false, error: 'refused by the test' }, { status: 400 }), sent).then(
          () => undefined,
          (error: unknown) => error,
        );
        const { schema, effective } = oracle(subject, input);
        const expected = schema.safeParse(effective);
        const headerSafe = !takesKey(subject) || !expected.success || HEADER_SAFE.test((expected.data as { key: string }).key);
        if (!expected.success || !headerSafe) {
          expect(outcome).toBeInstanceOf(RequestValidationError);
          expect(sent).toHaveLength(0);
          return;
        }
        expect(outcome).toBeInstanceOf(APIError);
        expect(sent).toHaveLength(1);
        const wire = sent[0]!;
        if (takesKey(subject)) {
          expect(wire.headers.get('x-key')).toBe((expected.data as { key: string }).key);
          expect(wire.body).toBe('');
        } else if (subject.call.endpoint.method === 'GET') {
          const query = Object.entries(expected.data as Record<string, unknown>).filter(([, value]) => value !== undefined);
          expect([...wire.url.searchParams]).toEqual(query.map(([key, value]) => [key, String(value)]));
          expect(wire.body).toBe('');
        } else {
          expect(wire.body).toBe(JSON.stringify(expected.data));
          expect(wire.url.search).toBe('');
        }
      }),
      // 80 inputs per call: each call has its own schema, and the near-valid inputs find its edges quickly.
      { numRuns: Number(process.env.FC_RUNS ?? 80), examples: examples(subject) },
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

describe('any answer to any call', () => {
  test.each(subjects.map((subject) => [subject.name, subject] as const))('%s: gives a result or a PayorchError, never anything else', async (_name, subject) => {
    noBackoff();
    await fc.assert(
      fc.asyncProperty(answers, async (answer) => {
        const sent: Sent[] = [];
        const respond = () => new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers });
        const outcome = await subject.run(subject.call.valid, respond, sent).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (outcome !== undefined) expect(outcome).toBeInstanceOf(PayorchError);
        expect(sent.length).toBeGreaterThanOrEqual(1);
      }),
      // 40 answers per call, 1,000 in all: the transport reads every answer the same way, only the schema differs.
      { numRuns: Number(process.env.FC_RUNS ?? 40) },
    );
  });
});
