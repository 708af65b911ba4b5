import { inspect } from 'node:util';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, test } from 'vitest';
import {
  APIError,
  AuthenticationError,
  DealerClient,
  ConnectionError,
  InternalServerError,
  PermissionDeniedError,
  ProviderClient,
  RequestAbortedError,
  TimeoutError,
  ResponseValidationError,
  UnprocessableEntityError,
} from '../../src/index.js';
import type { ClientOptions, Logger } from '../../src/index.js';
import { BASE_URL, DEALER, PROVIDER } from '../helpers/wire.js';
import { server, useMsw } from '../mocks/server.js';

useMsw();

/*
 * A service that echoes back everything secret it was sent, in every place an answer has: the JSON
 * body (values, nested values, keys), the headers, and non-JSON text. Nothing of it may reach
 * anything a user can log: the error (inspected, serialised, its stack) and every hook and log event.
 */

const X_KEY = 'xkey_Q7w9e2r4t6y8';
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1' };
const iban = 'TR330006100519786457841326';

type Scenario = readonly [name: string, expected: new (...args: never[]) => Error, answer: (echo: string) => Response];

const scenarios: readonly Scenario[] = [
  [
    'a 401 JSON refusal',
    AuthenticationError,
    (echo) => HttpResponse.json({ success: false, error: 'Invalid hash', message: `expected ${echo}`, details: { [echo]: [echo, { hint: echo }] } }, { status: 401, headers: { 'x-echo': encodeURIComponent(echo) } }),
  ],
  ['a 403 JSON refusal', PermissionDeniedError, (echo) => HttpResponse.json({ success: false, error: 'IP address not allowed', message: echo }, { status: 403, headers: { 'x-echo': encodeURIComponent(echo) } })],
  ['a validation failure', UnprocessableEntityError, (echo) => HttpResponse.json({ success: false, error: 'Doğrulama hatası', messages: [echo, `iban ${echo}`] }, { status: 422 })],
  ['a non-JSON 502 page', APIError, (echo) => new HttpResponse(`<html><body>upstream said ${echo}</body></html>`, { status: 502, headers: { 'content-type': 'text/html', 'x-echo': encodeURIComponent(echo) } })],
  ['a 2xx answer of the wrong shape', ResponseValidationError, (echo) => HttpResponse.json({ success: true, message: echo, data: echo, [echo]: echo })],
  ['an answer over maxResponseBytes', APIError, (echo) => HttpResponse.json({ success: false, padding: 'x'.repeat(5_000), message: echo }, { status: 500, headers: { 'x-echo': encodeURIComponent(echo) } })],
];

interface Observed {
  readonly events: unknown[];
  readonly options: Pick<ClientOptions, 'logger' | 'onRequest' | 'onResponse' | 'maxResponseBytes' | 'maxRetries' | 'now'>;
}

function observed(): Observed {
  const events: unknown[] = [];
  const log = (fields: Readonly<Record<string, unknown>>, message: string) => events.push({ fields, message });
  const logger: Logger = { debug: log, info: log, warn: log, error: log };
  // A clock that moves a second each time it is read, so that every attempt is signed with its own hash.
  let clock = Date.now();
  const now = () => (clock += 1_000);
  return {
    events,
    options: { logger, onRequest: (event) => events.push(event), onResponse: (event) => events.push(event), maxResponseBytes: 4_096, maxRetries: 2, now },
  };
}

/** Adds to `secrets` every secret a request carries: the hash, the X-Key, the credential key in a header or the body. */
async function collectSecrets(request: Request, secrets: Set<string>): Promise<void> {
  for (const name of ['x-hash', 'x-key', 'x-credential-key']) {
    const value = request.headers.get(name);
    if (value !== null) secrets.add(value);
  }
  const text = await request.text();
  const bodyKey = text === '' ? undefined : (JSON.parse(text) as { credential_key?: string }).credential_key;
  if (bodyKey !== undefined) secrets.add(bodyKey);
}

/**
 * Answers every request under the API with `answer(echo)`, where echo holds every secret seen so
 * far in this test, in several forms; the first `failFirst` answers are a 503 that echoes too (so a
 * read-only call is retried and sends more than one hash).
 */
function echoingService(answer: (echo: string) => Response, failFirst: number): { readonly secrets: Set<string> } {
  const secrets = new Set<string>();
  let attempts = 0;
  server.use(
    http.all(`${BASE_URL}/api/*`, async ({ request }) => {
      attempts++;
      await collectSecrets(request, secrets);
      const all = [...secrets];
      const echo = [...all, ...all.map((secret) => secret.toUpperCase()), JSON.stringify(all)].join(' | ');
      if (attempts <= failFirst) return HttpResponse.json({ success: false, error: 'busy', message: echo }, { status: 503, headers: { 'retry-after': '0' } });
      return answer(echo);
    }),
  );
  return { secrets };
}

function expectNoSecret(error: unknown, events: readonly unknown[], secrets: readonly string[], formsOf = (secret: string): string[] => [secret, secret.toUpperCase(), encodeURIComponent(secret)]): void {
  const surfaces: [string, string][] = [
    ['util.inspect(err)', inspect(error, { depth: Infinity, showHidden: true })],
    ['JSON.stringify(err)', JSON.stringify(error)],
    ['err.stack', (error as Error).stack ?? ''],
    ['err.message', (error as Error).message],
    ...events.map((event, index): [string, string] => [`event ${index}`, inspect(event, { depth: Infinity, showHidden: true })]),
  ];
  for (const secret of secrets) {
    for (const [where, text] of surfaces) {
      for (const form of formsOf(secret)) {
        if (text.includes(form)) throw new Error(`${where} holds a secret (${secret.slice(0, 6)}…): ${text.slice(0, 2_000)}`);
      }
    }
  }
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: unknown) => error,
  );
}

describe.each(scenarios)('when the service echoes every secret in %s', (_name, expected, answer) => {
  test('a credential-signed payment call: the secret key, the hashes and the credential key reach no error, hook or log', async () => {
    const { events, options } = observed();
    const { secrets } = echoingService(answer, 0);
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, ...options });
    const error = await failure(() => provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }));
    expect(error).toBeInstanceOf(expected);
    expect(secrets.size).toBe(2); // the hash and the credential key
    expectNoSecret(error, events, [PROVIDER.secretKey, PROVIDER.credentialKey, ...secrets]);
    expect(inspect(error, { depth: Infinity })).toContain('[redacted]');
  });

  test('a card payment: the credential key sent in the body reaches no error, hook or log', async () => {
    const { events, options } = observed();
    const { secrets } = echoingService(answer, 0);
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, ...options });
    const error = await failure(() => provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 }));
    expect(error).toBeInstanceOf(expected);
    expect(secrets).toContain(PROVIDER.credentialKey);
    expectNoSecret(error, events, [PROVIDER.secretKey, ...secrets]);
  });

  test('sites.list: the X-Key and every hash of a retried read-only call reach no error, hook or log', async () => {
    const { events, options } = observed();
    const { secrets } = echoingService(answer, 2);
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, ...options });
    const error = await failure(() => provider.sites.list({ key: X_KEY }));
    expect(error).toBeInstanceOf(expected);
    expect(secrets).toContain(X_KEY);
    expect(secrets.size).toBeGreaterThanOrEqual(3); // the X-Key and a hash per attempt
    expectNoSecret(error, events, [PROVIDER.secretKey, ...secrets]);
  });

  test('a dealer call: the secret key (not ASCII) and every hash reach no error, hook or log', async () => {
    const { events, options } = observed();
    const { secrets } = echoingService((echo) => answer(`${echo} | ${DEALER.secretKey}`), 1);
    const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, ...options });
    const error = await failure(() => dealer.settings.get());
    expect(error).toBeInstanceOf(expected);
    expect(secrets.size).toBeGreaterThanOrEqual(2); // a hash per attempt
    expectNoSecret(error, events, [DEALER.secretKey, ...secrets]);
  });
});

/*
 * Base64 keys hold `/` and `+`, which a service, a proxy or a WAF may quote in an encoding of its
 * own: a 401 quoting the request URL-encoded with lower-case escapes, an HTML error page with
 * entities, a PHP body whose JSON escapes `/`.
 */
const SLASHED = { apiKey: PROVIDER.apiKey, secretKey: 'sk/Live+Zt8qL2mN/9xQ', credentialKey: 'cred/Site+7788/aa' } as const;
const SLASHED_X_KEY = 'xkey/Extra+55/bb';
const lowerEscapes = (text: string): string => encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
const htmlPage = (text: string): string => `<!DOCTYPE html><html><body><h1>500 Internal Server Error</h1><pre>${text}</pre></body></html>`;

describe.each([
  ['a 401 body percent-encoded with lower-case escapes', AuthenticationError, lowerEscapes, (quoted: string) => HttpResponse.json({ success: false, error: 'Invalid hash', message: `request ${quoted}` }, { status: 401, headers: { 'x-echo': quoted } })],
  ['a 401 body URL-encoded as Python’s quote does, / kept', AuthenticationError, (text: string) => encodeURIComponent(text).replaceAll('%2F', '/'), (quoted: string) => HttpResponse.json({ success: false, error: 'Invalid hash', message: `request ${quoted}` }, { status: 401 })],
  ['a 500 HTML page with &#x2F; entities', InternalServerError, (text: string) => text.replaceAll('/', '&#x2F;'), (quoted: string) => new HttpResponse(htmlPage(quoted), { status: 500, headers: { 'content-type': 'text/html' } })],
  ['a 500 HTML page with &#47; and &#43; entities', InternalServerError, (text: string) => text.replaceAll('/', '&#47;').replaceAll('+', '&#43;'), (quoted: string) => new HttpResponse(htmlPage(quoted), { status: 500, headers: { 'content-type': 'text/html' } })],
  ['a 500 HTML page with &sol; and &plus; entities', InternalServerError, (text: string) => text.replaceAll('/', '&sol;').replaceAll('+', '&plus;'), (quoted: string) => new HttpResponse(htmlPage(quoted), { status: 500, headers: { 'content-type': 'text/html' } })],
  ['a 2xx answer of the wrong shape whose JSON escapes / as PHP does', ResponseValidationError, (text: string) => JSON.stringify(text).slice(1, -1).replaceAll('/', '\\/'), (quoted: string) => new HttpResponse(`{"success":true,"message":"${quoted}"}`, { headers: { 'content-type': 'application/json' } })],
] as const)('when the service quotes keys holding / and + in %s', (_name, expected, encode, answer) => {
  test.each([
    ['a credential-signed payment', (provider: ProviderClient) => provider.manual.startWithdrawal({ ...customer, iban, amount: 100 }), SLASHED.credentialKey],
    ['an X-Key-signed read', (provider: ProviderClient) => provider.sites.list({ key: SLASHED_X_KEY }), SLASHED_X_KEY],
  ] as const)('%s: neither the secret key, the hash nor the key it sent reaches the error, a hook or a log', async (_call, run, key) => {
    const { events, options } = observed();
    const secrets = new Set<string>();
    server.use(
      http.all(`${BASE_URL}/api/*`, async ({ request }) => {
        await collectSecrets(request, secrets);
        return answer(encode([SLASHED.secretKey, ...secrets].join(' | ')));
      }),
    );
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...SLASHED, ...options, maxRetries: 0 });
    const error = await failure(() => run(provider));
    expect(error).toBeInstanceOf(expected);
    expect(secrets).toContain(key);
    // As quoted, and as util.inspect and JSON.stringify print it (PHP's backslash doubled).
    expectNoSecret(error, events, [SLASHED.secretKey, ...secrets], (secret) => [secret, encode(secret), JSON.stringify(encode(secret)).slice(1, -1)]);
    expect(inspect(error, { depth: Infinity })).toContain('[redacted]');
  });
});

test('a PHP service quoting the dealer secret key (not ASCII) with json_encode\'s \\uXXXX escapes in an answer of the wrong shape: the key reaches no error, hook or log', async () => {
  const { events, options } = observed();
  // json_encode's default: every character past ASCII as \uXXXX, and / as \/.
  const php = (text: string): string => JSON.stringify(text).slice(1, -1).replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`).replaceAll('/', '\\/');
  expect(php(DEALER.secretKey)).toContain('\\u00eb');
  server.use(http.all(`${BASE_URL}/api/*`, () => new HttpResponse(`{"success":true,"message":"${php(DEALER.secretKey)}"}`, { headers: { 'content-type': 'application/json' } })));
  const dealer = new DealerClient({ baseUrl: BASE_URL, ...DEALER, ...options, maxRetries: 0 });
  const error = await failure(() => dealer.settings.get());
  expect(error).toBeInstanceOf(ResponseValidationError);
  // As quoted, and as util.inspect and JSON.stringify print it (the backslashes doubled).
  expectNoSecret(error, events, [DEALER.secretKey], (secret) => [secret, php(secret), JSON.stringify(php(secret)).slice(1, -1)]);
  expect(inspect(error, { depth: Infinity })).toContain('[redacted]');
});

describe.each([
  ['a timeout', TimeoutError, () => delay('infinite'), () => ({ timeout: 200 })],
  ['an abort after sending', RequestAbortedError, () => delay('infinite'), () => ({ signal: AbortSignal.timeout(200) })],
  ['a network failure', ConnectionError, () => HttpResponse.error(), () => ({})],
] as const)('when a call ends in %s, without an answer', (_name, expected, answer, callOptions) => {
  function recordingService(): Set<string> {
    const secrets = new Set<string>();
    server.use(
      http.all(`${BASE_URL}/api/*`, async ({ request }) => {
        await collectSecrets(request, secrets);
        return answer();
      }),
    );
    return secrets;
  }

  test.each([
    ['a credential-signed payment', (provider: ProviderClient) => provider.manual.startDeposit({ ...customer, amount: 250 }, callOptions()), 'provider.manual.startDeposit'],
    ['a card payment (credential key in the body)', (provider: ProviderClient) => provider.creditCard.createPayment({ username: 'ada', user_id: 'u-1', firstname: 'Ada', lastname: 'Yılmaz', amount: 150 }, callOptions()), 'provider.creditCard.createPayment'],
    ['an X-Key-signed read', (provider: ProviderClient) => provider.sites.list({ key: X_KEY }, callOptions()), 'provider.sites.list'],
  ] as const)('%s: the error names its call and holds no secret key, hash, credential key or X-Key', async (_call, run, operation) => {
    const { events, options } = observed();
    const secrets = recordingService();
    const provider = new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER, ...options, maxRetries: 0 });
    const error = await failure(() => run(provider));
    expect(error).toBeInstanceOf(expected);
    expect(error).toMatchObject({ operation, request: { method: expect.stringMatching(/^(GET|POST)$/) as string, url: expect.stringContaining(`${BASE_URL}/api/provider/`) as string } });
    expect((error as Error).message).toContain(`(${operation})`);
    expect(secrets.size).toBeGreaterThanOrEqual(2); // a hash and a key
    expectNoSecret(error, events, [PROVIDER.secretKey, PROVIDER.credentialKey, X_KEY, ...secrets]);
  });
});

test('the API key is an identifier, not a secret: a refusal that quotes it keeps it, so the account can be told', async () => {
  echoingService(() => HttpResponse.json({ success: false, error: 'Invalid API key', message: `unknown key ${PROVIDER.apiKey}` }, { status: 401 }), 0);
  const error = await failure(() => new ProviderClient({ baseUrl: BASE_URL, ...PROVIDER }).welcome());
  expect((error as AuthenticationError).message).toContain(PROVIDER.apiKey);
});
