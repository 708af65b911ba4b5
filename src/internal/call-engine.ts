import type * as kyModuleType from 'ky';
import type { KyInstance } from 'ky';
import type { z } from 'zod/mini';
import type * as ApiErrorModule from '../errors/api-error.js';
import type { APIError, FailedRequest } from '../errors/api-error.js';
import { ConnectionError, PayorchError, RequestValidationError } from '../errors/error.js';
import type { CallOutcome } from '../errors/error.js';
import { callLabel, outcomeSentence } from '../errors/call-message.js';
import { callUrl, failedCall } from './call.js';
import type { Call, TransportConfig } from './call.js';
import { declaredCharset, decoderOf } from './charset.js';
import { requestHash } from './signer.js';
import type { RequestOptions } from '../core/request-options.js';
import { Observer, redactHeaders } from './observer.js';
import type { LoggedCall } from './observer.js';
import type { Answered } from '../core/api-promise.js';
import { traceCall } from './tracing.js';
import type { CallTrace } from './tracing.js';
import { attemptOutcome, backoffDelay, mayResend, retriesConnection, statusRetryDelay, worstOutcome } from './retry-policy.js';
import { DEFAULT_CLIENT_MAX_RETRIES, DEFAULT_CLIENT_TIMEOUT_MS, PROVIDER_REQUEST_OPTIONS, REQUEST_OPTIONS, checkOptions } from '../core/option-checks.js';
import { connectionFailure, detachedCause } from './connection-failure.js';
import { LazyModule } from './lazy-module.js';
import { readLimited } from './read-limited.js';
import { userAgent } from './user-agent.js';
import { safeParse, toIssues } from './validation.js';

/** The error classes and redaction of api-error.ts the engine uses, handed to it by the transport. */
export type EngineErrors = Pick<typeof ApiErrorModule, 'APIError' | 'RequestAbortedError' | 'ResponseValidationError' | 'TimeoutError' | 'redactText' | 'secretForms'>;

/** A learned offset this close to the current one would fail again: the call is not resent. */
const MIN_CLOCK_CORRECTION_MS = 2_000;
/**
 * A `Date` further than this from the local clock is not learned: no clock drifts a day, so the
 * header is wrong (a proxy's, a hostile one) and would skew the signature of every later call.
 */
const MAX_CLOCK_OFFSET_MS = 24 * 60 * 60 * 1000;

/** What came back from one attempt: an answer read to its end, or a typed failure. */
type Settled<T> =
  | { readonly ok: true; readonly status: number; readonly value: T; readonly answer: Answer }
  | { readonly ok: false; readonly status: number | undefined; readonly error: PayorchError; readonly answer: Answer | undefined };

/** An answer read to its end: the `Response` (its body consumed) and the text read from it. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly response: Response;
  /** The URL the attempt was sent to: what `response.url` says, where a custom fetch left it empty. */
  readonly url: string;
}


/** The state of one call across its attempts. */
interface CallState {
  readonly call: Call<z.ZodMiniType>;
  readonly url: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly started: number;
  readonly userSignal: AbortSignal | undefined;
  /** Aborted for the caller or for the deadline: #toError checks the caller's signal first. */
  readonly signal: AbortSignal;
  /** Every X-Hash sent, to be kept out of error messages even when the service echoes one. */
  readonly sentHashes: string[];
  retries: number;
  clockCorrected: boolean;
  /** True from the moment the current attempt is handed to fetch: past it, fetch cannot say whether bytes left. */
  onWire: boolean;
  /** What fetch itself threw for the current attempt, before ky wrapped it (with the signed request). */
  fetchError: unknown;
  /** The least safe outcome of the attempts made so far: what an abort between attempts reports. */
  outcome: CallOutcome;
}

/**
 * The only code that speaks HTTP, made by a client's transport on its first call (transport.ts).
 * It signs every attempt afresh, applies one deadline per call and the money-safe retry policy,
 * corrects a skewed clock, parses JSON, turns every failure into a typed {@link PayorchError}
 * and tells the logger and hooks what happened.
 */
export class CallEngine {
  readonly #config: TransportConfig;
  /** The base URL, without a trailing `/`; each call's path is below it. */
  readonly #root: string;
  /** The base URL's path (a proxy's prefix), empty at the host's root: log lines name it before the call's path. */
  readonly #rootPathname: string;
  readonly #errors: EngineErrors;
  readonly #maxResponseBytes: number;
  /** Created on the first call (#loadKy). */
  #ky: KyInstance | undefined;
  readonly #now: () => number;
  readonly #observer: Observer;
  /** False when no hook is set and the log is below `debug`: then no event is built, since no one would read it. */
  readonly #observed: boolean;
  /** Server time minus local time, learned from a "Request timestamp expired" answer. */
  #clockOffsetMs: number;
  readonly #userAgent = userAgent();
  /** See #headersOf. */
  #lastHeaders: { readonly key: string; readonly headers: Readonly<Record<string, string>> } | undefined;

  /**
   * @param root the base URL as the transport checked it, without a trailing `/`
   * @param errors the error classes of api-error.ts, from the transport: imported here, that
   *   module, which the main entry loads anyway, would be a chunk of its own in the build, one more
   *   file for every import of payorch to load (bench/findings.md)
   * @param maxResponseBytes the client's, or its default (client-options.ts, kept out for the same reason)
   */
  constructor(config: TransportConfig, root: string, errors: EngineErrors, maxResponseBytes: number) {
    this.#config = config;
    this.#root = root;
    this.#errors = errors;
    this.#maxResponseBytes = maxResponseBytes;
    this.#rootPathname = new URL(root).pathname.replace(/\/+$/, '');
    this.#now = config.now ?? Date.now;
    this.#clockOffsetMs = config.clockOffsetMs ?? 0;
    this.#observer = new Observer(config);
    this.#observed = this.#observer.observed;
  }

  async #loadKy(): Promise<KyInstance> {
    const ky = (await KY.load()).default;
    this.#ky ??= ky.create({
      timeout: false, // one deadline of our own covers retries and the body read
      retry: 0, // the retry loop below knows which failures may have moved money; ky cannot
      throwHttpErrors: false,
      // A redirect would re-send a payment body to wherever it points: never follow one.
      redirect: 'manual',
    });
    return this.#ky;
  }

  // Not async: each layer of promises is work on every call.
  request<S extends z.ZodMiniType>(call: Call<S>, options: RequestOptions = {}): Promise<Answered<z.output<S>>> {
    const tracer = this.#config.tracer;
    if (tracer === undefined) return this.#request(call, options, undefined);
    const start = { operation: call.operation, method: call.method, url: callUrl(this.#root, call) };
    return traceCall(tracer, start, (trace) => this.#request(call, options, trace));
  }

  async #request<S extends z.ZodMiniType>(call: Call<S>, options: RequestOptions, trace: CallTrace | undefined): Promise<Answered<z.output<S>>> {
    checkOptions(call.operation, options, this.#config.api === 'provider' ? PROVIDER_REQUEST_OPTIONS : REQUEST_OPTIONS);
    const timeout = options.timeout ?? this.#config.timeout ?? DEFAULT_CLIENT_TIMEOUT_MS;
    // One controller per call, aborted by the deadline or by the caller's signal, and dropped
    // with its timer when the call ends. AbortSignal.timeout() would keep a timer, a signal and
    // what listens to it alive for the whole timeout after the call, and AbortSignal.any() would
    // add a combined signal to every call.
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort(new DOMException(`The call took longer than ${timeout} ms`, 'TimeoutError'));
    }, timeout);
    const userSignal = options.signal;
    const forwardAbort = () => {
      controller.abort(userSignal?.reason);
    };
    userSignal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      const state: CallState = {
        call,
        url: callUrl(this.#root, call),
        timeout,
        maxRetries: Math.max(0, options.maxRetries ?? this.#config.maxRetries ?? DEFAULT_CLIENT_MAX_RETRIES),
        started: performance.now(),
        userSignal: options.signal,
        signal: controller.signal,
        sentHashes: [],
        retries: 0,
        clockCorrected: false,
        onWire: false,
        fetchError: undefined,
        outcome: 'not_sent',
      };
      const headers = this.#headersOf(call); // checked before the first attempt: bad keys are never sent
      if (options.signal?.aborted === true) throw new this.#errors.RequestAbortedError(options.signal.reason, { ...failedCall(this.#config.api, call, state.url), outcome: 'not_sent' });

      // Before the first attempt, outside the classification of its failures: a ky that did not
      // load fails the call with what LazyModule says (nothing sent), not as a broken connection.
      const client = this.#ky ?? (await this.#loadKy());
      for (let attempt = 1; ; attempt++) {
        const sentAt = performance.now();
        // An answer, the error of one payorch refuses to read, or what the attempt threw, classified.
        let attempted: Answer | PayorchError;
        try {
          attempted = await this.#attempt(client, state, headers, attempt);
        } catch (error) {
          attempted = this.#toError(error, state);
        }
        const settled: Settled<z.output<S>> =
          attempted instanceof PayorchError
            ? { ok: false, status: attempted instanceof this.#errors.APIError ? attempted.status : undefined, error: attempted, answer: undefined }
            : this.#judge(call, attempted, state);
        state.onWire = false;
        state.fetchError = undefined;
        if (!settled.ok) state.outcome = worstOutcome(state.outcome, settled.error.outcome);
        const retryDelayMs = settled.ok ? undefined : this.#retryDelay(state, settled);
        if (this.#observed) {
          const event = {
            operation: call.operation,
            method: call.method,
            url: state.url,
            attempt,
            durationMs: Math.round(performance.now() - sentAt),
            status: settled.status,
            error: settled.ok ? undefined : settled.error,
            outcome: settled.ok ? undefined : settled.error.outcome,
            retryDelayMs,
          };
          this.#observer.response(event, this.#logged(call));
        }
        trace?.settled(attempt, settled.status, settled.ok ? undefined : settled.error, retryDelayMs);
        if (settled.ok) return { value: settled.value, answer: settled.answer, secrets: () => this.#secrets(call, state.sentHashes) };
        // A call that fails is thrown to its caller, who decides: the default logger (warn) says
        // nothing of it, as stripe-node and openai-node do not. A retry is news the caller never sees.
        const level = retryDelayMs === undefined ? 'info' : 'warn';
        if (this.#observer.enabled(level)) this.#logFailure(level, call, state, settled, attempt, retryDelayMs);
        if (retryDelayMs === undefined) throw settled.error;
        await sleep(retryDelayMs, state.signal).catch((error: unknown) => {
          throw this.#toError(error, state);
        });
      }
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener('abort', forwardAbort);
    }
  }

  /** What a log line names of a call: never its query, a header or a body. */
  #logged(call: Call<z.ZodMiniType>): LoggedCall {
    return { operation: `${this.#config.api}.${call.operation}`, method: call.method, path: `${this.#rootPathname}${call.path}` };
  }

  /**
   * The line of a failed attempt: `warn` when another follows, `info` when the call fails (its
   * caller has the error). The error's class and outcome, not its message, which may quote the body.
   */
  #logFailure(level: 'warn' | 'info', call: Call<z.ZodMiniType>, state: CallState, failure: { readonly status: number | undefined; readonly error: PayorchError }, attempt: number, retryDelayMs: number | undefined): void {
    const logged = this.#logged(call);
    const { error, status } = failure;
    const durationMs = Math.round(performance.now() - state.started);
    const fields = { ...logged, attempt, status, durationMs, outcome: error.outcome, error: error.name, ...(retryDelayMs === undefined ? {} : { retryDelayMs }) };
    const answered = status === undefined ? error.name : `${error.name}, HTTP ${status}`;
    const where = `${logged.method} ${logged.path} (${logged.operation})`;
    const message =
      retryDelayMs === undefined
        ? `payorch ✗ ${where} failed after ${attempt} attempt${attempt === 1 ? '' : 's'} in ${durationMs} ms: ${answered}, outcome ${error.outcome}`
        : `payorch ↻ ${where}: ${answered}; attempt ${attempt + 1} in ${retryDelayMs} ms`;
    this.#observer.log(level, fields, message);
  }

  /**
   * Signs and sends one attempt and reads its body, within the call's deadline. An answer payorch
   * refuses to read (too large, or reached through a redirect) is returned as its error: what
   * this throws is what fetch, the body read or the signal threw, which #toError classifies, and
   * never passes on as it is (an abort reason may be another call's error).
   */
  async #attempt(client: KyInstance, state: CallState, headers: Readonly<Record<string, string>>, attempt: number): Promise<Answer | APIError> {
    const { call, url } = state;
    const timestamp = String(Math.floor((this.#now() + this.#clockOffsetMs) / 1000));
    const hash = requestHash(this.#config.credentials, call.signing, timestamp);
    state.sentHashes.push(hash);
    if (this.#observed) this.#observer.request({ operation: call.operation, method: call.method, url, attempt, headers: redactHeaders({ ...headers, 'X-Timestamp': timestamp, 'X-Hash': hash }) }, this.#logged(call));
    const custom = this.#config.fetch;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    // The fetch is read at call time: msw and other test doubles patch globalThis.fetch later.
    const send = (request: Request, init: RequestInit | undefined): Promise<Response> => {
      // Aborted before this attempt reached fetch: it cannot have been sent (outcome not_sent).
      state.signal.throwIfAborted();
      state.onWire = true;
      return (custom === undefined ? globalThis.fetch(request, init) : untilAborted(custom(request, init), state.signal)).catch((error: unknown) => {
        state.fetchError = error;
        throw error;
      });
    };
    const response = await client(
      url,
      custom === undefined
        ? {
            method: call.method,
            // fetch builds its own Request from ky's and this init: the headers, body and
            // deadline given here, not to ky, are copied once (into fetch's Request) instead of
            // twice, and ky's own Request carries no body for fetch to pipe through a stream.
            fetch: (input) => send(input as Request, { method: call.method, headers: { ...headers, 'X-Timestamp': timestamp, 'X-Hash': hash }, ...(body === undefined ? {} : { body }), redirect: 'manual', signal: state.signal }),
          }
        : {
            method: call.method,
            // A custom fetch gets ky's Request whole (client-options.ts). The signing headers are
            // set on it here: through `headers`, ky would merge two more headers on every attempt.
            headers,
            ...(body === undefined ? {} : { body }),
            // The deadline rides on the fetch ky calls, not on ky's `signal` option: given a
            // signal, ky combines it with its own through AbortSignal.any on every call. ky 2 puts
            // `redirect` on the Request only; a fetch that builds its own request from the URL and
            // this init finds it here too.
            fetch: (input, init) => {
              (input as Request).headers.set('X-Timestamp', timestamp);
              (input as Request).headers.set('X-Hash', hash);
              return send(input as Request, { ...init, redirect: 'manual', signal: state.signal });
            },
          },
    );
    const secrets = () => this.#secrets(call, state.sentHashes);
    if (response.redirected) {
      // A custom fetch that rebuilds the request from its URL drops `redirect: 'manual'` and
      // follows: the body may have gone to wherever the redirect pointed.
      await response.body?.cancel().catch(() => undefined);
      return this.#errors.APIError.generate({ status: response.status, headers: Object.fromEntries(response.headers), body: undefined, request: { method: call.method, url }, redact: secrets(), summary: 'The answer came through a redirect, which payorch never follows: the custom fetch dropped redirect: "manual"', outcome: 'unknown', call: failedCall(this.#config.api, call, url) });
    }
    const limit = this.#maxResponseBytes;
    const bytes = await readLimited(response.body, response.headers.get('content-length'), limit);
    if (bytes === undefined) {
      return this.#errors.APIError.generate({
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: undefined,
        request: { method: call.method, url },
        call: failedCall(this.#config.api, call, url),
        redact: secrets(),
        summary: `The answer is larger than maxResponseBytes (${limit} bytes)`,
        outcome: attemptOutcome({ kind: 'answer', status: response.status, refusal: false }),
      });
    }
    const text = decoderFor(response.headers.get('content-type')).decode(bytes);
    return { status: response.status, headers: response.headers, text, response, url };
  }

  /** Turns an answer into the call's result or the most specific error. */
  #judge<S extends z.ZodMiniType>(call: Call<S>, answer: Answer, state: CallState): Settled<z.output<S>> {
    const failed: FailedRequest = { method: call.method, url: state.url };
    const { status, text } = answer;
    let parsed: unknown = text;
    let isJson = false;
    try {
      parsed = JSON.parse(text);
      isJson = true;
    } catch {
      // Not JSON (a proxy's HTML page, an empty body): kept as text in the error.
    }
    const refusal = isJson && isFailureFlag(parsed);
    if (status < 200 || status > 299 || !isJson || refusal) {
      const outcome = attemptOutcome({ kind: 'answer', status, refusal });
      const error = this.#errors.APIError.generate({ status, headers: Object.fromEntries(answer.headers), body: parsed, request: failed, redact: this.#secrets(call, state.sentHashes), outcome, call: failedCall(this.#config.api, call, state.url) });
      return { ok: false, status, error, answer };
    }
    const result = safeParse(call.schema, parsed);
    if (!result.success) {
      const outcome = attemptOutcome({ kind: 'answer', status, refusal: false });
      const error = new this.#errors.ResponseValidationError(`${this.#config.api}.${call.operation}`, { status, issues: toIssues(result.error), body: parsed, rawBody: text, redact: this.#secrets(call, state.sentHashes), outcome, resendable: call.resendable });
      return { ok: false, status, error, answer: undefined };
    }
    return { ok: true, status, value: result.data, answer };
  }

  /**
   * How long to wait before the next attempt, or `undefined` when the call must fail now.
   * The money rule lives here: a call that creates a money movement is resent only when the
   * service cannot have received it (no connection was made: the name did not resolve, the
   * connection was refused or timed out; never after a failed TLS handshake) or refused it
   * outright (timestamp refused).
   */
  #retryDelay(state: CallState, failure: Extract<Settled<unknown>, { ok: false }>): number | undefined {
    const { error, answer } = failure;
    if (answer !== undefined && !state.clockCorrected && this.#learnClock(answer, state.url)) {
      // The service refused the timestamp, so it did nothing: one corrected resend is safe for
      // any call, and does not count against maxRetries.
      state.clockCorrected = true;
      return 0;
    }
    if (state.retries >= state.maxRetries || !mayResend(state.call.resendable, error.outcome)) return undefined;
    let delay: number | undefined;
    if (error instanceof ConnectionError) {
      delay = retriesConnection(error.reason) ? backoffDelay(state.retries + 1) : undefined;
    } else if (answer !== undefined) {
      delay = statusRetryDelay(answer.status, answer.headers, state.retries + 1, this.#now());
    }
    // A wait that outlasts the deadline would only turn this error into a TimeoutError.
    if (delay === undefined || performance.now() - state.started + delay >= state.timeout) return undefined;
    state.retries++;
    return delay;
  }

  /** Learns the clock offset from a "Request timestamp expired" answer; true when it changed. */
  #learnClock(answer: Answer, url: string): boolean {
    if (answer.status !== 401 || !/timestamp expired/i.test(answer.text)) return false;
    const serverTime = Date.parse(answer.headers.get('date') ?? '');
    if (Number.isNaN(serverTime)) return false;
    const offset = serverTime - this.#now();
    if (Math.abs(offset - this.#clockOffsetMs) < MIN_CLOCK_CORRECTION_MS) return false;
    if (Math.abs(offset) > MAX_CLOCK_OFFSET_MS) {
      this.#observer.log('warn', { path: new URL(url).pathname, clockOffsetMs: offset, maxClockOffsetMs: MAX_CLOCK_OFFSET_MS }, `payorch: ignored a Date header ${offset} ms away from this machine's clock (more than a day): fix this machine's clock, or pass clockOffsetMs`);
      return false;
    }
    this.#observer.log('info', { path: new URL(url).pathname, clockOffsetMs: offset, previousClockOffsetMs: this.#clockOffsetMs }, `payorch: the service's clock is ${Math.abs(offset)} ms ${offset < 0 ? 'behind' : 'ahead of'} this machine's; timestamps are corrected from now on`);
    this.#clockOffsetMs = offset;
    return true;
  }

  /**
   * What a thrown failure of an attempt means for the call. Its outcome comes from where the
   * attempt stood, never from the error object: an abort's reason (another call's error, when a
   * batch is cancelled with it) or what a custom fetch threw is only kept as the cause.
   */
  #toError(error: unknown, state: CallState): PayorchError {
    // Stopped with no attempt in fetch's hands (before the first, or between two): the call is
    // where its earlier attempts left it.
    const outcome = state.onWire ? 'unknown' : state.outcome;
    const call = failedCall(this.#config.api, state.call, state.url);
    if (state.userSignal?.aborted === true) return new this.#errors.RequestAbortedError(state.userSignal.reason, { ...call, outcome });
    if (state.signal.aborted) return new this.#errors.TimeoutError(state.timeout, { ...call, outcome });
    const forms = this.#errors.secretForms(this.#secrets(state.call, state.sentHashes));
    const redact = (text: string): string => this.#errors.redactText(text, forms);
    if (!state.onWire) {
      // Thrown before this attempt reached fetch (a `now` option that threw): nothing of it left.
      const cause = detachedCause(error, redact);
      return new PayorchError(`${callLabel(call)}: payorch could not prepare the request (${cause?.message ?? redact(String(error))}). ${outcomeSentence(outcome, call)}`, { cause, outcome });
    }
    // fetch's own error, not ky's wrapper of it, which holds the signed request.
    const thrown = state.fetchError ?? error;
    // A custom fetch may follow a redirect whatever it is told: see connectionFailure.
    const reason = connectionFailure(thrown, this.#config.fetch === undefined ? undefined : new URL(state.url));
    const cause = detachedCause(thrown, redact);
    return new ConnectionError({ ...call, cause, reason, outcome: attemptOutcome({ kind: 'no_answer', reason }) });
  }

  /**
   * What must not reach an error, a hook or a log even when the service echoes it back. The API
   * key is not among them: it is an identifier, sent in clear on every request and callback, and
   * the one value that tells which account a refusal is about (docs/decisions.md).
   */
  #secrets(call: Call<z.ZodMiniType>, sentHashes: readonly string[]): string[] {
    const secrets = [this.#config.credentials.secretKey, ...sentHashes];
    if (call.signing.hash === 'key') secrets.push(call.signing.key);
    if (call.signing.hash === 'credential') secrets.push(call.signing.credentialKey);
    if (call.secrets !== undefined) secrets.push(...call.secrets);
    return secrets;
  }

  /**
   * The unsigned headers of a call. Those of a call without headers of its own depend only on its
   * signing: the last ones made are kept (every basic-signed call of a client, every call of one
   * site), since the checks are work on every call otherwise.
   */
  #headersOf(call: Call<z.ZodMiniType>): Readonly<Record<string, string>> {
    if (call.headers !== undefined) return this.#headers(call);
    const { signing } = call;
    const key = signing.hash === 'basic' ? '' : signing.hash === 'key' ? `k${signing.key}` : `c${signing.credentialKey}`;
    if (this.#lastHeaders?.key !== key) this.#lastHeaders = { key, headers: this.#headers(call) };
    return this.#lastHeaders.headers;
  }

  #headers(call: Call<z.ZodMiniType>): Record<string, string> {
    // A User-Agent of the caller's (request({ headers })) wins, whatever its case.
    const ownAgent = call.headers !== undefined && Object.keys(call.headers).some((name) => name.toLowerCase() === 'user-agent');
    const headers: Record<string, string> = {
      ...(ownAgent ? {} : { 'User-Agent': this.#userAgent }),
      ...call.headers,
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'X-Api-Key': this.#config.credentials.apiKey,
    };
    if (call.signing.hash === 'key') headers['X-Key'] = call.signing.key;
    if (call.signing.hash === 'credential') headers['X-Credential-Key'] = call.signing.credentialKey;
    // Typed as text, a value may be anything from JavaScript (a key of 42, null): a RegExp would
    // read it as "42" and sign it, and the redaction of a failure after sending would throw.
    const invalid = Object.entries(headers).filter(([, value]: [string, unknown]) => typeof value !== 'string' || !HEADER_VALUE.test(value));
    if (invalid.length > 0) {
      // fetch would throw a TypeError that looks like a network failure; say what is wrong instead.
      throw new RequestValidationError(
        call.operation,
        invalid.map(([name]) => ({ field: name, rule: 'header_value', message: 'must be printable Latin-1 text without line breaks or surrounding spaces to travel in an HTTP header' })),
      );
    }
    return headers;
  }
}

// What a header carries unchanged: no control characters, nothing above U+00FF, and no space or
// tab at either end (fetch strips those, so the hash would cover a value the service never sees).
const HEADER_VALUE = /^(?![\t ])[\t\x20-\x7e\x80-\xff]*(?<![\t ])$/;

/**
 * The decoder of the charset an answer declares (older Turkish stacks send latin5, which the
 * WHATWG encoding standard reads as windows-1254, a superset), UTF-8 when it declares none or
 * one the platform does not know.
 */
function decoderFor(contentType: string | null): TextDecoder {
  const label = declaredCharset(contentType);
  if (label === undefined || UTF8_LABEL.test(label)) return UTF8;
  // An unknown label: UTF-8, what JSON is by definition.
  return decoderOf(label) ?? UTF8;
}

/** One UTF-8 decoder for every answer: `decode()` without `stream` keeps no state between calls. */
const UTF8 = /* @__PURE__ */ new TextDecoder();
const UTF8_LABEL = /^(?:unicode-1-1-)?utf-?8$/i;

/**
 * ky, imported with `import()` on the first call, as the engine itself is: ky is published as ES
 * modules only, which the CommonJS build can load no other way. A failed import fails the call
 * with a PayorchError that says so and that nothing was sent; the next call tries again.
 */
const KY = /* @__PURE__ */ new LazyModule<typeof kyModuleType>('ky, its HTTP client (imported on a client\'s first call)', () => import('ky'), 'not_sent');

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `success: false` as other stacks write it too (`"false"`, `0`): a refusal, not an unreadable answer. */
function isFailureFlag(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { success } = body as { success?: unknown };
  return success === false || success === 0 || (typeof success === 'string' && success.trim().toLowerCase() === 'false');
}

/**
 * `fetched`, or a rejection with the signal's reason once it aborts: a custom fetch that ignores
 * the signal (one that never settles, a wrapper that drops `init.signal`) must not outlive the
 * call's deadline. What it settles with later is handled here, never left unhandled.
 */
function untilAborted(fetched: Promise<Response>, signal: AbortSignal): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Aborted while the custom fetch was being called: no event comes any more.
    if (signal.aborted) onAbort();
    fetched.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        // An answer after the deadline is read by nobody: its body is let go.
        if (signal.aborted) void value.body?.cancel().catch(() => undefined);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the fetch threw, as it threw it
        reject(error);
      },
    );
  });
}
