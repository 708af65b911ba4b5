import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  CallbackVerificationError,
  ConflictError,
  ConnectionError,
  createCallbackReceiver,
  createMemoryInbox,
  PermissionDeniedError,
  PayorchError,
  ProviderClient,
  RequestAbortedError,
  RequestValidationError,
  ResponseValidationError,
  signCallback,
  TimeoutError,
  UnprocessableEntityError,
  NotFoundError,
  RateLimitError,
  InternalServerError,
  verifyCallback,
} from '../../src/index.js';
import type { CallbackErrorDetails, CallbackReceiverOptions, CallbackVerificationReason, CallOutcome, ConnectionFailureReason, MemoryInboxContext } from '../../src/index.js';
import { connectionFailure } from '../../src/internal/connection-failure.js';
import { checkCallbackJob } from '../../src/webhooks/job.js';
import { createVerifier } from '../../src/webhooks/verify.js';
import { CALLBACK_OUTCOMES } from '../../src/webhooks/receiver/meter.js';
import { MAX_RETRY_AFTER_MS, RETRY_STATUS_CODES, attemptOutcome, backoffDelay, mayResend, retriesConnection, statusRetryDelay } from '../../src/internal/retry-policy.js';
import { unsigned } from '../helpers/callbacks.js';
import { table } from '../helpers/markdown.js';
import { serveNode } from '../helpers/serve.js';
import { PROVIDER } from '../helpers/wire.js';

/*
 * The tables of docs/receiving-callbacks.md and docs/errors-and-retries.md are what users act on: which answer
 * a receiver gives, which reason a refusal names, what an error's outcome means, what is retried.
 * Each row is read from the Markdown and held to what the code does (a real callback through a
 * real receiver, a real client against a real socket, or the retry policy's own functions), and
 * each table must have exactly the rows this file knows how to check: a row edited, added or
 * removed on either side alone fails here.
 */

const root = join(import.meta.dirname, '../..');
const webhooksGuide = readFileSync(join(root, 'docs/receiving-callbacks.md'), 'utf8');
const errorsGuide = readFileSync(join(root, 'docs/errors-and-retries.md'), 'utf8');

/** The texts in backticks of a cell. */
const quoted = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map(([, text]) => text ?? '');
const plain = (cell: string): string => cell.replace(/\*\*/g, '').trim();

describe('docs/receiving-callbacks.md', () => {
  const reasonRows = table(webhooksGuide, ['`error.reason`', '`error.status`', 'Meaning']);
  const reasonStatus = new Map(reasonRows.map(([reason = '', status = '']) => [quoted(reason)[0] ?? '', Number(status)]));

  // A real callback for each reason verifyCallback may refuse with; the Record makes a reason added
  // to CallbackVerificationReason fail to compile until it has one.
  const fresh = (fields: Record<string, unknown> = {}): { headers: Record<string, string>; body: string } => {
    const signed = signCallback({ ...unsigned.deposit, ...fields }, PROVIDER);
    return { headers: { ...signed.headers }, body: signed.body };
  };
  // A job of the right shape, for this receiver's merchant.
  const SOME_JOB = { version: 2, merchantId: PROVIDER.apiKey, kind: 'deposit', event: 'deposit.completed', payload: {}, receivedAt: Date.now(), signature: { hash: '0'.repeat(64), timestamp: 1, in: 'headers' } };
  const jobCheck = { verifier: createVerifier(PROVIDER), merchantId: PROVIDER.apiKey, nowMs: Date.now() };
  const refusals: Record<CallbackVerificationReason, () => unknown> = {
    missing_header: () => verifyCallback({ headers: {}, body: fresh().body }, PROVIDER),
    repeated_header: () => verifyCallback({ headers: { ...fresh().headers, 'x-hash': ['a', 'b'] }, body: fresh().body }, PROVIDER),
    empty_header: () => verifyCallback({ headers: { ...fresh().headers, 'X-Hash': '' }, body: fresh().body }, PROVIDER),
    invalid_signature: () => {
      const { headers, body } = fresh();
      return verifyCallback({ headers: { ...headers, 'X-Hash': '0'.repeat(64) }, body }, PROVIDER);
    },
    timestamp_out_of_tolerance: () => verifyCallback(fresh(), { ...PROVIDER, now: () => Date.now() + 10 * 86_400_000 }),
    api_key_mismatch: () => verifyCallback(fresh(), { ...PROVIDER, apiKey: 'someone-else' }),
    merchant_mismatch: () => checkCallbackJob({ ...SOME_JOB, merchantId: 'someone-else' }, jobCheck),
    // Sealed by the receiver before a rotation, checked after its window closed.
    seal_key_expired: () =>
      checkCallbackJob(createVerifier({ ...PROVIDER, secretKey: 'the key before the rotation' }).seals.seal(SOME_JOB), {
        ...jobCheck,
        verifier: createVerifier({ ...PROVIDER, previousSecretKey: { secretKey: 'the key before the rotation', until: new Date(Date.now() - 1000) } }),
      }),
    // Sealed with a key this worker does not hold (yet).
    seal_key_unknown: () => checkCallbackJob(createVerifier({ ...PROVIDER, secretKey: 'the key after the rotation' }).seals.seal(SOME_JOB), jobCheck),
    malformed_body: () => verifyCallback({ headers: fresh().headers, body: '[1, 2]' }, PROVIDER),
    unreadable_payload: () => verifyCallback(fresh({ amount: '1.500,00 TL' }), PROVIDER),
    invalid_tracking_code: () => verifyCallback(fresh({ tracking_code: 'not a code' }), PROVIDER),
    invalid_status: () => verifyCallback(fresh({ status: 'done!' }), PROVIDER),
    kind_mismatch: () => verifyCallback(fresh(), { ...PROVIDER, kind: 'withdrawal' }),
  };

  test('the table of verification reasons lists exactly the reasons verifyCallback and receiver.apply refuse with', () => {
    expect([...reasonStatus.keys()].sort()).toEqual(Object.keys(refusals).sort());
  });

  test.each(Object.entries(refusals))('a callback refused as %s carries the status its row of the reasons table gives', (reason, run) => {
    let thrown: unknown;
    try {
      run();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CallbackVerificationError);
    expect({ reason: (thrown as CallbackVerificationError).reason, status: (thrown as CallbackVerificationError).status }).toEqual({ reason, status: reasonStatus.get(reason) });
  });

  test('the onError phases the guide lists are exactly those CallbackErrorDetails allows', () => {
    const phases: Record<CallbackErrorDetails['phase'], true> = { verify: true, handler: true, inbox: true, request: true, payload: true, confirm: true, unhandled: true, enqueue: true, retention: true };
    const listed = /\(phases ([^)]*)\)/.exec(webhooksGuide.replace(/\s+/g, ' '))?.[1] ?? '';
    expect(quoted(listed).sort()).toEqual(Object.keys(phases).sort());
  });

  // Each answer the receiver's table lists, produced by a real callback over a real socket.
  type Options = Omit<CallbackReceiverOptions<MemoryInboxContext>, 'apiKey' | 'secretKey'>;
  interface Scenario {
    readonly options?: Options;
    readonly handler?: (() => void) | undefined;
    /** Sent before the delivery that is checked, with the clock it returns moved on. */
    readonly before?: boolean;
    readonly request: () => RequestInit;
  }
  const post = (fields: Record<string, unknown> = {}): (() => RequestInit) => () => ({ method: 'POST', ...fresh(fields) });
  let inboxNow = Date.now();
  const scenarios: Record<string, Scenario> = {
    '200 {"success":true}': { handler: () => undefined, request: post() },
    '401 {"success":false,"error":"<reason>"}': { request: () => ({ method: 'POST', body: fresh().body, headers: { ...fresh().headers, 'X-Hash': 'f'.repeat(64) } }) },
    '400 {"success":false,"error":"<reason>"}': { request: post({ tracking_code: 'not a code' }) },
    '409 {"success":false,"error":"not_confirmed"}': { options: { confirm: () => false }, handler: () => undefined, request: post() },
    '413 {"success":false,"error":"body_too_large"}': { request: post({ note: 'x'.repeat(64 * 1024) }) },
    '422 {"success":false,"error":"record_too_old"}': {
      options: { inbox: createMemoryInbox({ now: () => inboxNow }) },
      handler: () => undefined,
      before: true,
      request: post({ tracking_code: `MAN-tables1-${Math.floor(Date.now() / 1000)}` }),
    },
    '405 {"success":false,"error":"method_not_allowed"}': { request: () => ({ method: 'GET' }) },
    '500 {"success":false,"error":"not_applied"}': {
      handler: () => {
        throw new Error('the ledger is down');
      },
      request: post(),
    },
    '500 {"success":false,"error":"unreadable_payload"}': { request: post({ amount: '1.500,00 TL' }) },
    '500 {"success":false,"error":"no_handler"}': { options: { unhandled: 'retry' }, request: post() },
    '500 {"success":false,"error":"not_queued"}': {
      options: {
        enqueue: () => {
          throw new Error('the queue is down');
        },
      },
      request: post(),
    },
  };
  const answerRows = table(webhooksGuide, ['Status', 'Body', 'When']).map(([status = '', body = '']) => `${status} ${quoted(body)[0] ?? body}`);

  test('the table of receiver answers has exactly the rows this test drives', () => {
    expect(answerRows.sort()).toEqual(Object.keys(scenarios).sort());
  });

  test.each(answerRows)('a receiver answers a real callback as the row "%s" says', async (row) => {
    const scenario = scenarios[row];
    if (scenario === undefined) throw new Error(`no scenario for ${row}`);
    const phases: string[] = [];
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: (_error, { phase }) => void phases.push(phase), ...scenario.options });
    if (scenario.handler !== undefined) receiver.on('deposit', scenario.handler);
    const served = await serveNode(receiver.nodeHandler);
    try {
      if (scenario.before === true) {
        expect((await fetch(served.url, scenario.request())).status).toBe(200);
        inboxNow += 31 * 86_400_000;
      }
      const response = await fetch(served.url, scenario.request());
      const text = await response.text();
      const [status, body] = [row.slice(0, 3), row.slice(4)];
      expect(response.status).toBe(Number(status));
      if (body.includes('<reason>')) {
        const { error } = JSON.parse(text) as { error: string };
        expect(text).toBe(body.replace('<reason>', error));
        expect(reasonStatus.get(error), `${error} in the reasons table with status ${status}`).toBe(Number(status));
      } else expect(text).toBe(body);
      // Whatever onError was told, the guide names it among the phases.
      for (const phase of phases) expect(webhooksGuide).toContain(`\`${phase}\``);
    } finally {
      await served.close();
    }
  });
});

describe('docs/observability.md', () => {
  test('the payorch.outcome row lists exactly the outcomes the receiver counts', () => {
    const guide = readFileSync(join(root, 'docs/observability.md'), 'utf8');
    const row = table(guide, ['Attribute', 'Values']).find(([attribute]) => attribute === '`payorch.outcome`');
    // Each value is in backticks, what it means in parentheses.
    expect(quoted((row?.[1] ?? '').replace(/\([^)]*\)/g, '')).sort()).toEqual([...CALLBACK_OUTCOMES].sort());
  });
});

describe('docs/errors-and-retries.md', () => {
  test('each row of the connection failures table is what connectionFailure reads from its runtime signs, with its outcome and retry', () => {
    const rows = table(errorsGuide, ['Failure', '`reason`', '`outcome`', 'Node (undici: `cause.code`)', 'Bun (`code` on the error)', 'Deno (message)', 'Retried']);
    // Every reason, as the compiler checks: a reason added to the type and not here fails the typecheck.
    const reasons = Object.keys({ name_not_resolved: true, connection_refused: true, host_unreachable: true, connect_timeout: true, tls_handshake: true, not_permitted: true, connection_failed: true } satisfies Record<ConnectionFailureReason, true>) as ConnectionFailureReason[];
    const seen = new Set<string>();
    for (const [failure = '', reasonCell = '', outcomeCell = '', node = '', bun = '', deno = '', retried = ''] of rows) {
      const reason = quoted(reasonCell)[0] as ConnectionFailureReason;
      const outcome = quoted(outcomeCell)[0] as CallOutcome;
      if (!reasons.includes(reason)) {
        // The deadline or an abort once handed to fetch: a TimeoutError or RequestAbortedError.
        expect([failure, outcome, plain(retried)]).toEqual(['Deadline or abort once handed to `fetch`', 'unknown', 'never']);
        expect(new TimeoutError(1, { operation: 'o', request: { method: 'POST', url: 'https://x.test/' } }).outcome).toBe(outcome);
        expect(new RequestAbortedError(undefined, { operation: 'o', request: { method: 'POST', url: 'https://x.test/' } }).outcome).toBe(outcome);
        continue;
      }
      seen.add(reason);
      const nodeCodes = quoted(node).filter((code) => /^[A-Z][A-Z0-9_]+$/.test(code));
      const bunSigns = bun === 'the same codes' ? nodeCodes : quoted(bun).filter((code) => !code.endsWith('Error'));
      const errors: [string, unknown][] = [
        ...nodeCodes.map((code): [string, unknown] => [`node ${code}`, new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) })]),
        // A code only with its syscall (`ECONNRESET with syscall \`connect\``), and a message node:tls gives in quotes.
        ...[...node.matchAll(/([A-Z][A-Z0-9_]+) with syscall `(\w+)`/g)].map(([, code = '', syscall]): [string, unknown] => [`node ${code} ${syscall}`, new TypeError('fetch failed', { cause: Object.assign(new Error(`${syscall} ${code}`), { code, syscall }) })]),
        ...[...node.matchAll(/"([^"]+)"/g)].map(([, text = '']): [string, unknown] => [`node "${text}"`, new TypeError('fetch failed', { cause: new Error(text) })]),
        ...(/^[A-Z]+$/.test(bunSigns[0] ?? '') && /"(.+)"/.test(bun)
          ? [[`bun ${bunSigns[0]}`, Object.assign(new TypeError(/"(.+)"/.exec(bun)?.[1]), { code: bunSigns[0] })] as [string, unknown]]
          : bunSigns.map((code): [string, unknown] => [`bun ${code}`, Object.assign(new TypeError('fetch failed'), { code })])),
        ...(deno === '—' ? [] : [[`deno ${deno}`, new TypeError(quoted(deno).join(': '))] as [string, unknown]]),
      ];
      expect(errors.length, failure).toBeGreaterThan(0);
      for (const [sign, error] of errors) expect(connectionFailure(error), sign).toBe(reason);
      expect(new ConnectionError({ operation: 'o', request: { method: 'POST', url: 'https://x.test/' }, cause: undefined, reason }).outcome, failure).toBe(outcome);
      expect(attemptOutcome({ kind: 'no_answer', reason }), failure).toBe(outcome);
      const resent = (resendable: boolean): boolean => retriesConnection(reason) && mayResend(resendable, outcome);
      const expected = { 'yes, even a payment': [true, true], no: [false, false], 'read-only calls only': [true, false] }[plain(retried)];
      expect([resent(true), resent(false)], failure).toEqual(expected);
    }
    expect([...seen].sort()).toEqual([...reasons].sort());
  });

  test('each row of the retry table is what the retry policy decides for a read-only call and for a payment', () => {
    const rows = table(errorsGuide, ['', 'Read-only calls', 'Calls that create a money movement']);
    const retried = (cell: string): boolean => {
      const word = plain(cell).split(/[ :(]/)[0];
      if (word !== 'retried' && word !== 'never') throw new Error(`"${cell}" is neither retried nor never`);
      return word === 'retried';
    };
    const byConnection = (reasons: readonly ConnectionFailureReason[]) => (resendable: boolean): boolean[] =>
      reasons.map((reason) => retriesConnection(reason) && mayResend(resendable, attemptOutcome({ kind: 'no_answer', reason })));
    const byStatus = (statuses: readonly number[]) => (resendable: boolean): boolean[] =>
      statuses.map((status) => statusRetryDelay(status, new Headers(), 1, 0) !== undefined && mayResend(resendable, attemptOutcome({ kind: 'answer', status, refusal: false })));
    const listed = rows.find(([label]) => /^\d{3}(, \d{3})*$/.test(label ?? ''))?.[0] ?? '';
    const transient = listed.split(', ').map(Number);
    const others = Array.from({ length: 500 }, (_, index) => index + 100).filter((status) => !RETRY_STATUS_CODES.has(status));
    const checks: Record<string, ((resendable: boolean) => boolean[]) | 'by the transport'> = {
      'Connection refused, name not resolved, host unreachable, never connected': byConnection(['connection_refused', 'name_not_resolved', 'host_unreachable', 'connect_timeout']),
      'TLS handshake failed, connection not permitted': byConnection(['tls_handshake', 'not_permitted']),
      'Reset, closed mid-answer': byConnection(['connection_failed']),
      [listed]: byStatus(transient),
      'Any other status, a bad answer': byStatus(others),
      // Driven through a real client below.
      'Timeout, abort': 'by the transport',
      '401 `Request timestamp expired` with a `Date`': 'by the transport',
    };
    expect(new Set(transient)).toEqual(RETRY_STATUS_CODES);
    const outcomes: CallOutcome[] = ['not_sent', 'refused', 'unknown'];
    for (const [label = '', resendableCell = '', paymentCell = ''] of rows) {
      if (label === 'Which') continue;
      if (label === 'Which outcome allows a resend') {
        expect([plain(resendableCell), plain(paymentCell)]).toEqual(['any transient failure', '`not_sent` only (the same classification as `error.outcome`)']);
        expect(outcomes.map((outcome) => mayResend(true, outcome))).toEqual([true, true, true]);
        expect(outcomes.map((outcome) => mayResend(false, outcome))).toEqual([true, false, false]);
        continue;
      }
      const check = checks[label];
      if (check === undefined) throw new Error(`the retry table's row "${label}" is not checked here`);
      if (check === 'by the transport') continue;
      for (const [resendable, cell] of [[true, resendableCell], [false, paymentCell]] as const) {
        expect(new Set(check(resendable)), `${label}, ${resendable ? 'read-only' : 'payment'}`).toEqual(new Set([retried(cell)]));
      }
    }
    expect(rows.map(([label]) => label).sort()).toEqual(['Which', 'Which outcome allows a resend', ...Object.keys(checks)].sort());
  });

  test('the backoff and Retry-After limits are those the guide states', () => {
    const backoff = /a random wait up to (\d+) ms · 2\^\(retry − 1\), at most (\d+) s/.exec(errorsGuide);
    const retryAfter = /is waited\s+exactly, up to (\d+) s/.exec(errorsGuide);
    expect(backoff).not.toBeNull();
    expect(retryAfter).not.toBeNull();
    const random = vi.spyOn(Math, 'random').mockReturnValue(1);
    try {
      expect([backoffDelay(1), backoffDelay(3), backoffDelay(20)]).toEqual([Number(backoff?.[1]), 4 * Number(backoff?.[1]), 1000 * Number(backoff?.[2])]);
    } finally {
      random.mockRestore();
    }
    expect(MAX_RETRY_AFTER_MS).toBe(1000 * Number(retryAfter?.[1]));
  });

  describe('against a real server', () => {
    let server: Server;
    let base = '';
    let closedPort = 0;
    let requests = 0;
    let answer: (request: IncomingMessage, response: ServerResponse) => void = () => undefined;

    beforeAll(async () => {
      server = createServer((request, response) => {
        requests++;
        request.resume();
        answer(request, response);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const spare = createServer();
      await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
      closedPort = (spare.address() as AddressInfo).port;
      await new Promise<void>((resolve) => spare.close(() => { resolve(); }));
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    });

    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_request: IncomingMessage, response: ServerResponse): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const client = (options: Partial<ConstructorParameters<typeof ProviderClient>[0]> = {}): ProviderClient =>
      new ProviderClient({ baseUrl: base, ...PROVIDER, maxRetries: 0, ...options });

    /** The error a call raised, and how many requests reached the server. */
    async function failure(call: () => Promise<unknown>, serve: typeof answer = () => undefined): Promise<{ error: unknown; requests: number }> {
      answer = serve;
      requests = 0;
      try {
        await call();
      } catch (error) {
        return { error, requests };
      }
      throw new Error('the call succeeded');
    }

    // Each way a call fails, through a real client and socket: the class it raises and its outcome.
    const failures: [string, () => Promise<{ error: unknown; requests: number }>][] = [
      ['an impossible option', () => failure(async () => client({ timeout: -1 }).welcome())],
      ['a missing field', () => failure(() => client().manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: '', amount: 250 }))],
      ['a closed port', () => failure(() => client({ baseUrl: `http://127.0.0.1:${closedPort}` }).welcome())],
      ['a signal aborted before the call', () => failure(() => client().welcome({ signal: AbortSignal.abort() }))],
      ['a now option that throws', () => failure(() => client({ now: () => { throw new Error('clock broke'); } }).welcome())],
      [
        'a signal aborted in the wait between two refused connections',
        async () => {
          const random = vi.spyOn(Math, 'random').mockReturnValue(1);
          try {
            return await failure(() => client({ baseUrl: `http://127.0.0.1:${closedPort}`, maxRetries: 5 }).welcome({ signal: AbortSignal.timeout(100) }));
          } finally {
            random.mockRestore();
          }
        },
      ],
      ['a 401', () => failure(() => client().welcome(), json(401, { success: false, error: 'Invalid API key' }))],
      ['a 403', () => failure(() => client().welcome(), json(403, { success: false, error: 'IP not allowed' }))],
      ['a 422 with messages', () => failure(() => client().welcome(), json(422, { success: false, messages: ['amount is too small'] }))],
      ['a 400', () => failure(() => client().welcome(), json(400, { success: false, error: 'Bad request' }))],
      ['a 409', () => failure(() => client().welcome(), json(409, { success: false, error: 'Duplicate' }))],
      ['a 410', () => failure(() => client().welcome(), json(410, { success: false, error: 'Gone' }))],
      ['a 2xx success: false', () => failure(() => client().welcome(), json(200, { success: false, error: 'No' }))],
      ['a 500', () => failure(() => client().welcome(), json(500, { success: false, error: 'Server error' }))],
      ['a 404', () => failure(() => client().welcome(), json(404, { success: false, error: 'Not found' }))],
      ['a 429', () => failure(() => client().welcome(), json(429, { success: false, error: 'Slow down' }))],
      ['a 302', () => failure(() => client().welcome(), json(302, {}, { location: 'https://elsewhere.test/' }))],
      ['a 2xx that is not JSON', () => failure(() => client().welcome(), (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'))],
      ['a 2xx of another shape', () => failure(() => client().welcome(), json(200, { success: true, data: 'no provider here' }))],
      ['a reset connection', () => failure(() => client().welcome(), (request) => request.socket.destroy())],
      ['a server that never answers', () => failure(() => client({ timeout: 150 }).welcome())],
      [
        'a signal aborted after the request was sent',
        () => {
          const controller = new AbortController();
          return failure(() => client().welcome({ signal: controller.signal }), () => setTimeout(() => { controller.abort(); }, 20));
        },
      ],
    ];
    const seen: { name: string; error: PayorchError }[] = [];

    beforeAll(async () => {
      for (const [name, run] of failures) {
        const { error } = await run();
        if (!(error instanceof PayorchError)) throw new Error(`${name} raised ${String(error)}`);
        seen.push({ name, error });
      }
    });

    const classes: Record<string, new (...args: never[]) => PayorchError> = {
      RequestValidationError,
      AuthenticationError,
      PermissionDeniedError,
      UnprocessableEntityError,
      BadRequestError,
      ConflictError,
      APIError,
      NotFoundError,
      RateLimitError,
      InternalServerError,
      ResponseValidationError,
      ConnectionError,
      TimeoutError,
      RequestAbortedError,
    };
    const of = (name: string): { name: string; error: PayorchError }[] => {
      // PayorchError itself: what no subclass says (a call that could not be prepared); it has no row of its own.
      if (name === 'PayorchError') return seen.filter(({ error }) => error.constructor === PayorchError);
      const type = classes[name];
      if (type === undefined) throw new Error(`the guide names ${name}, which this test does not know`);
      // An APIError row means the class itself, not its subclasses (they have rows of their own).
      return seen.filter(({ error }) => (name === 'APIError' ? error.constructor === APIError : error instanceof type));
    };

    test('every class the outcome table raises an outcome as is seen raising it', () => {
      const rows = table(errorsGuide, ['`outcome`', 'Means', 'Raised as']);
      expect(rows.map(([outcome]) => outcome)).toEqual(["`'not_sent'`", "`'refused'`", "`'unknown'`"]);
      for (const [outcomeCell = '', , raisedAs = ''] of rows) {
        const outcome = /'(\w+)'/.exec(outcomeCell)?.[1];
        for (const name of new Set(quoted(raisedAs).filter((text) => /^[A-Z]\w*Error$/.test(text)))) {
          // The deadline fires between two attempts only when it beats the backoff's own timer,
          // which the transport never schedules past the deadline: no socket can stage that race.
          if (name === 'TimeoutError' && outcome === 'not_sent') continue;
          expect(of(name).map(({ error }) => error.outcome), `${name} as ${outcome}`).toContain(outcome);
        }
      }
      // And no outcome is raised by a class its row does not name.
      for (const { name, error } of seen) {
        const row = rows.find(([outcome]) => outcome === `\`'${error.outcome}'\``)?.[2] ?? '';
        expect(quoted(row).some((text) => text === error.name || (error instanceof APIError && text === 'APIError')), `${name}: ${error.name} ${error.outcome}`).toBe(true);
      }
    });

    test('the error classes table says of each class whether money could have moved as its outcomes do', () => {
      const rows = table(errorsGuide, ['Class', 'Thrown when', 'Could money have moved?', 'What to do']);
      expect(rows.map(([name]) => quoted(name ?? '')[0]).sort()).toEqual(Object.keys(classes).sort());
      for (const [nameCell = '', , moved = ''] of rows) {
        const name = quoted(nameCell)[0] ?? '';
        const outcomes = of(name).map(({ error }) => error.outcome);
        expect(outcomes.length, name).toBeGreaterThan(0);
        const answer = plain(moved).split(/[ ,:.]/)[0];
        // "No for every reason but one; maybe for that one" is a maybe.
        const maybe = answer === 'Maybe' || (answer === 'No' && /\bmaybe\b/i.test(moved));
        if (maybe) expect(outcomes, name).toContain('unknown');
        else if (answer === 'No') expect(outcomes, name).not.toContain('unknown');
        else if (answer === 'Yes') expect(new Set(outcomes), name).toEqual(new Set(['unknown']));
        else throw new Error(`${name}: "${moved}" says neither No, Yes nor Maybe`);
        if (maybe && answer === 'No') expect(outcomes, name).toContain('not_sent');
      }
    });

    test('the retry table\'s timeout row: a call whose deadline ran out is not sent again', async () => {
      const row = table(errorsGuide, ['', 'Read-only calls', 'Calls that create a money movement']).find(([label]) => label === 'Timeout, abort') ?? [];
      expect(row.slice(1).map((cell) => plain(cell).split(' ')[0])).toEqual(['never', 'never']);
      const { error, requests: sent } = await failure(() => client({ timeout: 150, maxRetries: 3 }).welcome());
      expect(error).toBeInstanceOf(TimeoutError);
      expect(sent).toBe(1);
    });

    test('the retry table\'s timestamp row: a payment refused for its timestamp with a Date is resent once, for read-only calls and payments alike', async () => {
      const row = table(errorsGuide, ['', 'Read-only calls', 'Calls that create a money movement']).find(([label]) => label?.startsWith('401') === true) ?? [];
      expect(row.slice(1).map((cell) => plain(cell).split(/ with/)[0])).toEqual(['resent once', 'resent once']);
      const skewed = json(401, { success: false, error: 'Request timestamp expired' }, { date: new Date(Date.now() + 3_600_000).toUTCString() });
      for (const call of [(c: ProviderClient) => c.welcome(), (c: ProviderClient) => c.manual.startDeposit({ fullname: 'Ada', username: 'ada', user_id: 'u-1', amount: 250 })]) {
        const { error, requests: sent } = await failure(() => call(client({ maxRetries: 3 })), skewed);
        expect(error).toBeInstanceOf(AuthenticationError);
        expect(sent).toBe(2);
      }
    });

    test('a refused option is a RequestValidationError that names it', () => {
      expect(() => client({ timeout: -1 })).toThrow(RequestValidationError);
    });
  });
});
