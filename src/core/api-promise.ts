import { redactText, secretForms } from '../errors/api-error.js';

/** A call's parsed result and the answer it came from, as the transport hands it over. No entry exports it. */
export interface Answered<T> {
  readonly value: T;
  readonly answer: {
    /** The `Response` as received, its body read by payorch. */
    readonly response: Response;
    /** The body's text as payorch read it. */
    readonly text: string;
    /** The URL the attempt was sent to. */
    readonly url: string;
  };
  /** Values that must not reach the raw answer handed out, even when the service echoes them. */
  readonly secrets: () => readonly string[];
}

/**
 * A call's parsed result with the answer it came from: what `withResponse()` resolves to. The
 * result is `body`, as an `APIError`'s is: `data` is a field of the service's answer
 * (`const { data } = await call`), so it names nothing else.
 */
export interface WithResponse<T> {
  /** The parsed, validated body of the answer: what awaiting the call gives. */
  readonly body: T;
  /**
   * The answer as received: `status`, `statusText`, `headers`, `url`, and a body that reads the
   * text payorch parsed. Never the request: its signing headers (X-Api-Key, X-Hash, X-Key,
   * X-Credential-Key) are not in it, and a value of them the service echoes is `[redacted]`.
   */
  readonly response: Response;
}

function ignore(): void {
  // The base promise is never settled: then, catch and finally read the call's own promise.
}

/**
 * What every method of the clients returns: a promise of the parsed result, as awaited, with two
 * more ways to read the answer, as openai's SDK has them.
 *
 * - `await call` gives the parsed result.
 * - `await call.withResponse()` gives `{ body, response }`: the result and the HTTP answer.
 * - `await call.asResponse()` gives the HTTP answer alone.
 *
 * All three are the same call, sent once, with the same retries, errors and money rules: a
 * failure rejects each of them with the same typed error.
 *
 * @example
 * ```ts
 * import type { ProviderClient } from 'payorch';
 * declare const provider: ProviderClient;
 * const params = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1', amount: 250 };
 * const { body, response } = await provider.manual.startDeposit(params).withResponse();
 * console.log(response.status, response.headers.get('date'), body.data.tracking_code);
 * ```
 */
export class APIPromise<T> extends Promise<T> {
  readonly #answered: Promise<Answered<T>>;
  #data: Promise<T> | undefined;

  /** Made by the clients around a call already sent. @internal */
  constructor(answered: Promise<Answered<T>>) {
    super(ignore);
    this.#answered = answered;
  }

  /** Promise's own methods (`Promise.all`, `then` of a plain promise) make plain promises. */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** Runs `start` now, turning a throw into a rejection, as an `async` method would. @internal */
  static start<T>(start: () => Promise<Answered<T>>): APIPromise<T> {
    let answered: Promise<Answered<T>>;
    try {
      answered = start();
    } catch (error) {
      // Whatever a method threw before sending (a RequestValidationError): the rejection carries it as it is.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      answered = Promise.reject(error);
    }
    return new APIPromise(answered);
  }

  /** The HTTP answer, once the call succeeded; see {@link WithResponse.response}. */
  asResponse(): Promise<Response> {
    return this.#answered.then(rawResponse);
  }

  /** The parsed result and the HTTP answer, once the call succeeded. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answered.then((answered) => ({ body: answered.value, response: rawResponse(answered) }));
  }

  override then<R1 = T, R2 = never>(onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#parsed().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }

  #parsed(): Promise<T> {
    this.#data ??= this.#answered.then(valueOf);
    return this.#data;
  }
}

function valueOf<T>(answered: Answered<T>): T {
  return answered.value;
}

/**
 * A fresh `Response` of the answer: payorch read the original's body to check it, so this one
 * carries the same text, status and headers, and the URL it came from. Built only when asked.
 * @internal
 */
export function rawResponse(answered: Answered<unknown>): Response {
  const { response, text, url } = answered.answer;
  const forms = secretForms(answered.secrets());
  const headers = new Headers();
  for (const [name, value] of response.headers) headers.append(name, redactText(value, forms));
  const copy = new Response(redactText(text, forms), { status: response.status, statusText: response.statusText, headers });
  Object.defineProperty(copy, 'url', { value: response.url === '' ? url : response.url, enumerable: true });
  return copy;
}
