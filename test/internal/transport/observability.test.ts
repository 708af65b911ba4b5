import { inspect } from 'node:util';
import { describe, expect, test, vi } from 'vitest';
import { APIError, AuthenticationError, ConnectionError, PermissionDeniedError, RequestAbortedError, RequestValidationError, ResponseValidationError, TimeoutError, UnprocessableEntityError } from '../../../src/index.js';
import type { Logger, RequestEvent, ResponseEvent } from '../../../src/index.js';
import { CARD, CARD_PAYMENT, CUSTOMER, DEPOSIT, WELCOME, refusedPort, json, noBackoff, providerFor, startServer, closeLoopbackServers } from '../../helpers/loopback.js';
import { unhandledDuring } from '../../helpers/unhandled.js';
import { PROVIDER } from '../../helpers/wire.js';

closeLoopbackServers();

interface LogLine {
  readonly level: keyof Logger;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** A logger with pino's call shape, `(fields, message)`, that keeps every line. */
function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: keyof Logger) => (fields: Readonly<Record<string, unknown>>, message: string) => lines.push({ level, fields, message });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('the logger', () => {
  test('gets every attempt at debug, each retry at warn and the failed call at info, fields first; a line names the operation, method, path, status and duration, never the body', async () => {
    noBackoff();
    const server = await startServer((_request, response) => { json(response, 503, { success: false, error: 'down for Ada Yılmaz' }); });
    const { logger, lines } = recordingLogger();
    await providerFor(server, { logger, logLevel: 'debug', maxRetries: 1 }).welcome().catch(() => undefined);
    expect(lines.map((line) => line.level)).toEqual(['debug', 'debug', 'warn', 'debug', 'debug', 'info']);
    const where = 'POST /api/provider/welcome (provider.welcome)';
    expect(lines[0]).toEqual({ level: 'debug', fields: { operation: 'provider.welcome', method: 'POST', path: '/api/provider/welcome', attempt: 1 }, message: `payorch → ${where} attempt 1` });
    expect(lines[1]!.fields).toEqual(expect.objectContaining({ attempt: 1, status: 503, durationMs: expect.any(Number) }));
    expect(lines[2]!.message).toBe(`payorch ↻ ${where}: InternalServerError, HTTP 503; attempt 2 in 0 ms`);
    expect(lines[4]!.message).toBe(`payorch ← ${where} HTTP 503 (outcome: unknown) in ${String(lines[4]!.fields['durationMs'])} ms (attempt 2)`);
    expect(lines[5]!.message).toBe(`payorch ✗ ${where} failed after 2 attempts in ${String(lines[5]!.fields['durationMs'])} ms: InternalServerError, HTTP 503, outcome unknown`);
    expect(lines[5]!.fields).toEqual({ operation: 'provider.welcome', method: 'POST', path: '/api/provider/welcome', attempt: 2, status: 503, durationMs: expect.any(Number), outcome: 'unknown', error: 'InternalServerError' });
    expect(JSON.stringify(lines)).not.toContain('Ada');
  });

  test.each([
    [600_000, 'ahead of'],
    [-600_000, 'behind'],
  ])('gets a learned clock offset at info, %i ms: the service is %s this machine', async (offsetMs, words) => {
    const server = await startServer((request, response, n) => (n === 1 ? json(response, 401, { success: false, error: 'Request timestamp expired' }, { date: new Date(Date.now() + offsetMs).toUTCString() }) : json(response, 200, WELCOME)),
    );
    const { logger, lines } = recordingLogger();
    await providerFor(server, { logger, logLevel: 'info' }).welcome();
    const info = lines.filter((line) => line.level === 'info');
    expect(info).toHaveLength(1);
    expect(info[0]!.message).toMatch(new RegExp(`^payorch: the service's clock is \\d+ ms ${words} this machine's`));
  });

  test('console works as the logger', async () => {
    const server = await startServer((_request, response) => { json(response, 200, WELCOME); });
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    await providerFor(server, { logger: console, logLevel: 'debug' }).welcome();
    expect(debug).toHaveBeenCalledTimes(2);
    expect(debug.mock.calls[0]![1]).toBe('payorch → POST /api/provider/welcome (provider.welcome) attempt 1');
  });

  test('a logger that throws does not change the result of a payment', async () => {
    const server = await startServer((_request, response) => { json(response, 200, DEPOSIT); });
    const broken = () => {
      throw new Error('disk full');
    };
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey, logger: { debug: broken, info: broken, warn: broken, error: broken } });
    await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).resolves.toEqual(DEPOSIT);
  });

  test('an async logger that rejects neither changes the outcome of a failed payment nor leaves a rejection unhandled', async () => {
    const server = await startServer((_request, response) => { json(response, 502, {}); });
    const rejecting = async (): Promise<void> => Promise.reject(new Error('log shipper down'));
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- an async listener, as code without this rule passes one
    const client = providerFor(server, { credentialKey: PROVIDER.credentialKey, logLevel: 'debug', logger: { debug: rejecting, info: rejecting, warn: rejecting, error: rejecting } });
    const unhandled = await unhandledDuring(async () => {
      await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).rejects.toMatchObject({ name: 'InternalServerError', status: 502, outcome: 'unknown' });
    });
    expect(unhandled).toEqual([]);
  });
});

describe('onRequest and onResponse', () => {
  test('are told of every attempt with its number, status, duration and the wait before the next', async () => {
    noBackoff();
    const server = await startServer((_request, response, n) => (n === 1 ? json(response, 502, {}) : json(response, 200, WELCOME)));
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    await providerFor(server, { onRequest: (event) => requests.push(event), onResponse: (event) => responses.push(event) }).welcome();
    const url = `${server.url}/api/provider/welcome`;
    expect(requests.map((event) => [event.operation, event.method, event.url, event.attempt])).toEqual([
      ['welcome', 'POST', url, 1],
      ['welcome', 'POST', url, 2],
    ]);
    expect(requests[0]!.headers).toEqual({
      'User-Agent': server.seen[0]!.headers['user-agent'],
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'X-Api-Key': `…${PROVIDER.apiKey.slice(-4)}`,
      'X-Timestamp': server.seen[0]!.headers['x-timestamp'],
      'X-Hash': `…${String(server.seen[0]!.headers['x-hash']).slice(-4)}`,
    });
    expect(responses).toEqual([
      { operation: 'welcome', method: 'POST', url, attempt: 1, status: 502, error: expect.any(APIError), outcome: 'unknown', retryDelayMs: 0, durationMs: expect.any(Number) },
      { operation: 'welcome', method: 'POST', url, attempt: 2, status: 200, error: undefined, outcome: undefined, retryDelayMs: undefined, durationMs: expect.any(Number) },
    ]);
  });

  test('report a failure without an answer with status undefined and the typed error', async () => {
    const responses: ResponseEvent[] = [];
    await providerFor({ url: `http://127.0.0.1:${await refusedPort()}` }, { maxRetries: 0, onResponse: (event) => responses.push(event) })
      .welcome()
      .catch(() => undefined);
    expect(responses).toHaveLength(1);
    expect(responses[0]!.status).toBeUndefined();
    expect(responses[0]!.error).toBeInstanceOf(ConnectionError);
    expect(responses[0]!.outcome).toBe('not_sent');
  });

  test('a hook that throws, or rejects, is logged and cannot turn a completed payment into a failure', async () => {
    const server = await startServer((_request, response) => { json(response, 200, DEPOSIT); });
    const { logger, lines } = recordingLogger();
    const client = providerFor(server, {
      credentialKey: PROVIDER.credentialKey,
      logger,
      onRequest: () => {
        throw new Error('metrics down');
      },
      // An async hook, as users write them: its rejection must be caught too.
      // eslint-disable-next-line @typescript-eslint/no-misused-promises
      onResponse: async () => Promise.reject(new Error('tracing down')),
    });
    await expect(client.manual.startDeposit({ ...CUSTOMER, amount: 250 })).resolves.toEqual(DEPOSIT);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((line) => line.level === 'error').map((line) => line.fields)).toEqual([
      { hook: 'onRequest', error: 'Error: metrics down' },
      { hook: 'onResponse', error: 'Error: tracing down' },
    ]);
    expect(server.seen).toHaveLength(1);
  });
});

describe('secrets', () => {
  test('no log line, hook event or error of any kind holds the secret key, a full credential or X-Key, or any hash sent', async () => {
    noBackoff();
    const X_KEY = 'xkey_9f8e7d6c5b4a3210';
    const TEN_MINUTES = 600_000;
    let n = 0;
    // One answer per request, in order: the calls below walk through every outcome.
    const script: ((respond: (status: number, body: unknown, headers?: Record<string, string>) => void, destroy: () => void) => void)[] = [
      (respond) => { respond(200, WELCOME); }, // welcome
      (respond) => { respond(200, { success: true, provider: { id: 1, name: 'Acme' }, total_sites: 0, sites: [] }); }, // sites.list
      (respond) => { respond(200, DEPOSIT); }, // manual.startDeposit
      (respond) => { respond(200, CARD_PAYMENT); }, // creditCard.createPayment
      (respond) => { respond(503, { success: false, error: 'busy' }); }, // getStatus, retried
      (respond) => { respond(200, { success: true, data: { tracking_code: 'CC-1', status: 'success', amount: 1 } }); },
      (respond) => { respond(401, { success: false, error: 'Request timestamp expired' }, { date: new Date(Date.now() + TEN_MINUTES).toUTCString() }); },
      (respond) => { respond(200, WELCOME); }, // the corrected resend
      (respond) => { respond(401, { success: false, error: 'Invalid hash' }); },
      (respond) => { respond(403, { success: false, error: 'Yetkisiz Credential Key', message: 'The key does not belong to you' }); },
      (respond) => { respond(422, { success: false, error: 'Doğrulama hatası', messages: ['Tutar zorunludur'] }); },
      (respond) => { respond(200, { success: true, data: { nonsense: true } }); }, // ResponseValidationError
      (_respond, destroy) => { destroy(); }, // reset: ConnectionError on a payment
      () => undefined, // no answer: TimeoutError
    ];
    const server = await startServer((request, response) => {
      const step = script[n++] ?? ((respond) => { respond(500, {}); });
      step(
        (status, body, headers) => { json(response, status, body, headers); },
        () => request.socket.resetAndDestroy(),
      );
    });

    const { logger, lines } = recordingLogger();
    const events: unknown[] = [];
    const options = { logger, logLevel: 'debug' as const, onRequest: (event: RequestEvent) => events.push(event), onResponse: (event: ResponseEvent) => events.push(event) };
    const client = providerFor(server, { ...options, credentialKey: PROVIDER.credentialKey });
    const errors: unknown[] = [];
    const attempt = async (call: () => Promise<unknown>) => {
      await call().catch((error: unknown) => errors.push(error));
    };

    await attempt(() => client.welcome());
    await attempt(() => client.sites.list({ key: X_KEY }));
    await attempt(() => client.manual.startDeposit({ ...CUSTOMER, amount: 250 }));
    await attempt(() => client.creditCard.createPayment(CARD));
    await attempt(() => client.creditCard.getStatus({ tracking_code: 'CC-1' }));
    await attempt(() => client.welcome());
    await attempt(() => client.welcome());
    await attempt(() => client.manual.startWithdrawal({ ...CUSTOMER, iban: 'TR330006100519786457841326', amount: 100 }));
    await attempt(() => client.manual.startWithdrawal({ ...CUSTOMER, iban: 'TR330006100519786457841326', amount: 100 }));
    await attempt(() => client.thirdParty.bank.gateways.list());
    await attempt(() => client.eiban.startDeposit({ ...CUSTOMER, amount: 250 }));
    await attempt(() => client.eiban.startDeposit({ ...CUSTOMER, amount: 250 }, { timeout: 200 }));
    await attempt(() => client.manual.startDeposit({ ...CUSTOMER, amount: 0 })); // RequestValidationError
    await attempt(() => client.manual.startDeposit({ ...CUSTOMER, amount: 5 }, { credentialKey: `${PROVIDER.credentialKey}\n` }));
    await attempt(() => client.welcome({ signal: AbortSignal.abort(new Error('user gave up')) }));
    const nowhere = providerFor({ url: `http://127.0.0.1:${await refusedPort()}` }, { ...options, credentialKey: PROVIDER.credentialKey, maxRetries: 1 });
    await attempt(() => nowhere.manual.startDeposit({ ...CUSTOMER, amount: 250 }));

    expect(errors.map((error) => (error as Error).constructor)).toEqual([
      AuthenticationError,
      PermissionDeniedError,
      UnprocessableEntityError,
      ResponseValidationError,
      ConnectionError,
      TimeoutError,
      RequestValidationError,
      RequestValidationError,
      RequestAbortedError,
      ConnectionError,
    ]);
    expect(lines.some((line) => line.level === 'warn')).toBe(true);
    expect(lines.some((line) => line.level === 'info')).toBe(true);

    const hashes = server.seen.map((request) => String(request.headers['x-hash']));
    expect(hashes.length).toBeGreaterThan(10);
    const secrets = [PROVIDER.secretKey, PROVIDER.credentialKey, PROVIDER.apiKey, X_KEY, ...hashes];
    const texts = [
      ...lines.flatMap((line) => [line.message, JSON.stringify(line.fields), inspect(line.fields, { depth: Infinity })]),
      ...events.flatMap((event) => [JSON.stringify(event), inspect(event, { depth: Infinity, showHidden: true })]),
      ...errors.flatMap((error) => describeError(error)),
    ];
    for (const secret of secrets) {
      const leaks = texts.filter((text) => text.includes(secret));
      expect(leaks, `leaked ${secret.slice(0, 6)}…`).toEqual([]);
    }
  });
});

/** Every way an error could be printed: message, stack, each cause, JSON and util.inspect. */
function describeError(error: unknown): string[] {
  const texts: string[] = [JSON.stringify(error), inspect(error, { depth: Infinity, showHidden: true })];
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 10; depth++) {
    if (current instanceof Error) {
      texts.push(current.message, current.stack ?? '', String(current));
      current = current.cause;
    } else {
      texts.push(inspect(current, { depth: Infinity }));
      current = undefined;
    }
  }
  return texts;
}
