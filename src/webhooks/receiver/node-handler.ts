import { concatBytes } from '../../internal/read-limited.js';
import { NOT_POST, TOO_LARGE } from './answers.js';
import { writeNodeAnswer } from './answer.js';
import type { CallbackReceiverAnswer, NodeResponseLike } from './answer.js';
import { unreadableBody } from './receive-body.js';
import type { EntrySettings } from './receive-body.js';
import type { CallbackBody } from '../body.js';

/*
 * `receiver.nodeHandler`, the entry point for node:http, Express and Fastify's raw request: a
 * body a parser left is sized whole; otherwise the stream is read once, sized as it is read.
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

export type { NodeResponseLike } from './answer.js';

/**
 * The body a parser that ran before left, when it consumed the stream; `undefined` when the
 * stream is still unread (then it is read, whatever the Content-Type: Express 4's
 * `express.json()` sets `req.body = {}` for a body it skipped) or when there is nothing else.
 *
 * - the raw bytes a `verify` hook kept (`rawBody`), exact;
 * - a string (`express.text()`) or bytes (`express.raw()`), exact;
 * - the single-key object `express.urlencoded()` makes of a JSON text sent as a form: the key is
 *   the JSON text, decoded as a form field ('+' read as a space, `%XX` decoded), so an unsigned
 *   field holding those characters may differ; the signed fields cannot (docs/receiving-callbacks.md);
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
const PAST_LIMIT = Symbol('past the limit');

// Made by the first body given as text (rare: Node's streams give bytes), not at import.
let encoder: TextEncoder | undefined;

/**
 * Reads a Node request body chunk by chunk and stops at the first chunk that takes it past
 * `limit` bytes (or at once, when Content-Length says so): a huge or endless body costs at most
 * `limit` bytes plus one chunk.
 *
 * @returns the bytes, or {@link PAST_LIMIT}
 * @throws when the stream fails or the client goes away before the end
 */
function readNodeBody(request: NodeRequestLike, limit: number): Promise<Uint8Array | typeof PAST_LIMIT> {
  const length = request.headers['content-length'];
  if (typeof length === 'string' && Number(length) > limit) return Promise.resolve(PAST_LIMIT);
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
      const bytes = typeof chunk === 'string' ? (encoder ??= new TextEncoder()).encode(chunk) : chunk instanceof Uint8Array ? chunk : undefined;
      if (bytes === undefined) return;
      size += bytes.byteLength;
      if (size > limit) {
        stop();
        // Nothing more is read into memory; Node discards the rest once the answer is sent.
        request.pause();
        resolve(PAST_LIMIT);
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

/** `receiver.nodeHandler`: one span per request, the answer written unless it was sent already. Never rejects. */
export function nodeHandler(entry: EntrySettings): (request: NodeRequestLike, response: NodeResponseLike) => Promise<void> {
  const { maxBodyBytes, verifyAndApply, logger, spans } = entry;
  return (request, response) =>
    spans.inReceiveSpan(async (trace) => {
      let reply: CallbackReceiverAnswer;
      const parsed = request.method === 'POST' ? bodyLeftByParser(request) : undefined;
      if (request.method !== 'POST') reply = NOT_POST;
      else if (parsed !== undefined) reply = await verifyAndApply({ headers: request.headers, body: parsed }, trace);
      else {
        const body = await readNodeBody(request, maxBodyBytes).catch((error: unknown) => unreadableBody(logger, error));
        reply = body === PAST_LIMIT ? TOO_LARGE : body instanceof Uint8Array ? await verifyAndApply({ headers: request.headers, body }, trace) : body;
      }
      trace.answered(reply);
      writeNodeAnswer(response, reply);
    });
}
