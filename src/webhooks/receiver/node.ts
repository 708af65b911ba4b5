import type { LevelledLogger } from '../../core/log-level.js';
import { concatBytes, readLimited } from '../../internal/read-limited.js';
import type { CallbackSpans, CallbackTrace } from '../../internal/tracing.js';
import { utf8Length } from '../body.js';
import type { CallbackBody } from '../body.js';
import type { CallbackHeaders } from '../headers.js';
import { NOT_APPLIED, answer } from './apply.js';
import type { CallbackReceiverAnswer, Report, ReceivedInput } from './apply.js';

/*
 * The receiver's entry points, each one span: `receiver.handle` (Fetch API),
 * `receiver.nodeHandler` (node:http, Express, Fastify's raw request) and `receiver.receive` (a
 * body you already have). Each reads the body once and sizes it once (as it reads, or whole when
 * a parser read it before), and hands it to the receive path.
 */


/**
 * The parts of a Node `IncomingMessage` the receiver uses, written out so that the main entry
 * needs no Node types: node:http's request, Express's and Fastify's `request.raw` all fit.
 */
export interface NodeRequestLike {
  readonly method?: string | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** What a body parser that ran before left here (`express.json()`, `express.raw()`, `express.text()`). */
  readonly body?: unknown;
  /** The raw bytes a parser's `verify` hook kept (`express.json({ verify: (req, _res, buf) => { req.rawBody = buf } })`). */
  readonly rawBody?: unknown;
  /** True once something else has read the whole body. */
  readonly readableEnded?: boolean | undefined;
  /** Listens to the body stream. */
  on(event: 'data' | 'end' | 'error' | 'close', listener: (value?: unknown) => void): unknown;
  /** Stops listening, once the body is read or refused. */
  removeListener(event: 'data' | 'end' | 'error' | 'close', listener: (value?: unknown) => void): unknown;
  /** Stops reading a body past the cap. */
  pause(): unknown;
}

/** The parts of a Node `ServerResponse` the receiver uses (Express's `res` and Fastify's `reply.raw` fit). */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  /** Sends the status and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Sends the body and ends the answer. */
  end(body: string): unknown;
}

/**
 * The body a parser that ran before left, when it consumed the stream; `undefined` when the
 * stream is still unread (then it is read, whatever the Content-Type: Express 4's
 * `express.json()` sets `req.body = {}` for a body it skipped) or when there is nothing else.
 *
 * - the raw bytes a `verify` hook kept (`rawBody`), exact;
 * - a string (`express.text()`) or bytes (`express.raw()`), exact;
 * - the single-key object `express.urlencoded()` makes of a JSON text sent as a form: the key is
 *   the JSON text, decoded as a form field ('+' read as a space, `%XX` decoded), so an unsigned
 *   field holding those characters may differ; the signed fields cannot (docs/webhooks.md);
 * - any other object (`express.json()`): the fields as parsed.
 */
function bodyLeftByParser(request: NodeRequestLike): CallbackBody | undefined {
  // Not a stream we know the state of (a hand-made request): its body, if any, is all there is.
  const ended = request.readableEnded;
  if (ended === false) return undefined;
  const { rawBody, body } = request;
  if (ended === true && (typeof rawBody === 'string' || rawBody instanceof Uint8Array)) return rawBody;
  if (body === undefined || body === null) return ended === true ? new Uint8Array() : undefined;
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) return body;
  // Nothing a callback could be (a number): read as empty, refused as malformed.
  if (typeof body !== 'object') return new Uint8Array();
  const fields = body as Readonly<Record<string, unknown>>;
  const keys = Object.keys(fields);
  const [only] = keys;
  if (keys.length === 1 && only !== undefined && only.startsWith('{') && fields[only] === '') return only;
  return fields;
}

/** The body was longer than the cap; it was not read further. */
const TOO_LARGE = Symbol('too large');

const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * Reads a Node request body chunk by chunk and stops at the first chunk that takes it past
 * `limit` bytes (or at once, when Content-Length says so): a huge or endless body costs at most
 * `limit` bytes plus one chunk.
 *
 * @returns the bytes, or {@link TOO_LARGE}
 * @throws when the stream fails or the client goes away before the end
 */
function readNodeBody(request: NodeRequestLike, limit: number): Promise<Uint8Array | typeof TOO_LARGE> {
  const length = request.headers['content-length'];
  if (typeof length === 'string' && Number(length) > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const stop = (): void => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
      request.removeListener('close', onClose);
    };
    const onData = (chunk: unknown): void => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk instanceof Uint8Array ? chunk : undefined;
      if (bytes === undefined) return;
      size += bytes.byteLength;
      if (size > limit) {
        stop();
        // Nothing more is read into memory; Node discards the rest once the answer is sent.
        request.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (): void => {
      stop();
      resolve(concatBytes(chunks, size));
    };
    const onError = (error?: unknown): void => {
      stop();
      reject(error instanceof Error ? error : new Error('the request body could not be read'));
    };
    const onClose = (): void => {
      stop();
      reject(new Error('the client closed the connection before the body ended'));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

const NOT_POST = /* @__PURE__ */ answer(405, 'method_not_allowed', { allow: 'POST' });
// Sent before the body was read to its end: the connection cannot carry another request.
const TOO_LARGE_ANSWER = /* @__PURE__ */ answer(413, 'body_too_large', { connection: 'close' });

/** What the entry points get of the receiver. */
export interface Receiving {
  /** The largest body read, in bytes (`maxBodyBytes`). */
  readonly maxBodyBytes: number;
  /** The receive path for a body read and sized: verify, then enqueue or apply. Never rejects. */
  readonly receive: (input: ReceivedInput, trace: CallbackTrace) => Promise<CallbackReceiverAnswer>;
  readonly report: Report;
  /** The receiver's logger, at its level: a body that could not be read is told at warn. */
  readonly logger: LevelledLogger;
  readonly spans: CallbackSpans;
}

/** The entry points of a receiver, `receiver.receive`, `handle` and `nodeHandler`: none of them rejects. */
export interface EntryPoints {
  readonly receive: (input: { readonly headers: CallbackHeaders; readonly body: CallbackBody }) => Promise<CallbackReceiverAnswer>;
  readonly handle: (request: Request) => Promise<Response>;
  readonly nodeHandler: (request: NodeRequestLike, response: NodeResponseLike) => Promise<void>;
}

/** The entry points over the receive path, each one span: every answer, refusals before verification included. */
export function entryPoints({ maxBodyBytes, receive, report, logger, spans }: Receiving): EntryPoints {
  // The client went away mid-body: nobody reads this answer, and nothing was applied.
  function unreadable(error: unknown): CallbackReceiverAnswer {
    logger.warn({ error }, 'payorch: the callback body could not be read');
    return answer(400, 'malformed_body');
  }

  // A body given whole (receive(), a framework's parser) is sized here; one read from a stream was
  // sized as it was read. A UTF-16 unit is at most 3 UTF-8 bytes: most strings are sized without
  // encoding them.
  function receiveWhole(input: ReceivedInput, trace: CallbackTrace): Promise<CallbackReceiverAnswer> {
    const { body } = input;
    const tooLarge =
      typeof body === 'string' ? body.length * 3 > maxBodyBytes && utf8Length(body) > maxBodyBytes : (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) && body.byteLength > maxBodyBytes;
    return tooLarge ? Promise.resolve(TOO_LARGE_ANSWER) : receive(input, trace);
  }

  /**
   * `receiver.nodeHandler`: a body a parser left is sized whole; otherwise the stream is read
   * once, sized as it is read.
   */
  async function handleNode(request: NodeRequestLike, response: NodeResponseLike, trace: CallbackTrace): Promise<void> {
    let reply: CallbackReceiverAnswer;
    const parsed = request.method === 'POST' ? bodyLeftByParser(request) : undefined;
    if (request.method !== 'POST') reply = NOT_POST;
    else if (parsed !== undefined) reply = await receiveWhole({ headers: request.headers, body: parsed }, trace);
    else {
      const body = await readNodeBody(request, maxBodyBytes).catch(unreadable);
      reply = body === TOO_LARGE ? TOO_LARGE_ANSWER : body instanceof Uint8Array ? await receive({ headers: request.headers, body }, trace) : body;
    }
    trace.answered(reply);
    try {
      if (!response.headersSent) {
        response.writeHead(reply.status, { ...reply.headers });
        response.end(reply.body);
      }
    } catch {
      // The connection is gone; the service counts the delivery as failed and sends it again.
    }
  }

  /** `receiver.handle`: the body is read once, sized as it is read. */
  async function handleFetch(request: Request, trace: CallbackTrace): Promise<Response> {
    let reply: CallbackReceiverAnswer;
    if (request.method !== 'POST') reply = NOT_POST;
    else if (request.bodyUsed) {
      report(new TypeError('receiver.handle: the request body was already read; pass the request before anything reads it'), { callback: undefined, phase: 'request' });
      reply = NOT_APPLIED;
    } else {
      const body = await readLimited(request.body, request.headers.get('content-length'), maxBodyBytes).catch(unreadable);
      reply = body === undefined ? TOO_LARGE_ANSWER : body instanceof Uint8Array ? await receive({ headers: request.headers, body }, trace) : body;
    }
    trace.answered(reply);
    return new Response(reply.body, { status: reply.status, headers: reply.headers });
  }

  return {
    receive: (input) => spans.receive(async (trace) => trace.answered(await receiveWhole(input, trace))),
    handle: (request) => spans.receive((trace) => handleFetch(request, trace)),
    nodeHandler: (request, response) => spans.receive((trace) => handleNode(request, response, trace)),
  };
}
