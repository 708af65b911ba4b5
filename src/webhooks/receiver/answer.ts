import { utf8Length } from '../body.js';

/*
 * How the receiver writes an answer (spec 6.1): the fixed ones are in answers.ts, which the
 * receive path loads; a receiver whose receive path could not be loaded answers with these alone.
 */

/** An answer of {@link CallbackReceiver.receive}: the status, headers and body to send. */
export interface CallbackReceiverAnswer {
  /** 200 applied, already applied or (with `enqueue`) queued; 400 malformed; 401 not genuine; 405 not POST; 409 refused by `confirm`; 413 too large; 422 record older than the inbox's retention; 500 not applied or not queued. */
  readonly status: 200 | 400 | 401 | 405 | 409 | 413 | 422 | 500;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON: `{"success":true}` (spec 6.1), or `{"success":false,"error":"<reason>"}`. */
  readonly body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** The answer of a status, with the reason of a refusal. */
export function answer(status: CallbackReceiverAnswer['status'], error?: string, extraHeaders?: Record<string, string>): CallbackReceiverAnswer {
  const body = error === undefined ? '{"success":true}' : JSON.stringify({ success: false, error });
  // The length known, node:http sends the answer in one piece instead of chunks. Counted without a
  // TextEncoder: the fixed answers are made at import, and JSON.stringify leaves no lone surrogate.
  return { status, headers: { ...JSON_HEADERS, 'content-length': String(utf8Length(body)), ...extraHeaders }, body };
}

/** The parts of a Node `ServerResponse` the receiver uses (Express's `res` and Fastify's `reply.raw` fit). */
export interface NodeResponseLike {
  readonly headersSent: boolean;
  /** Sends the status and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Sends the body and ends the answer. */
  end(body: string): unknown;
}

/** Writes an answer to a Node response, unless something already did. */
export function writeNodeAnswer(response: NodeResponseLike, reply: CallbackReceiverAnswer): void {
  try {
    if (!response.headersSent) {
      response.writeHead(reply.status, { ...reply.headers });
      response.end(reply.body);
    }
  } catch {
    // The connection is gone; the service counts the delivery as failed and sends it again.
  }
}

/** An answer as a Fetch `Response`. */
export function fetchAnswer(reply: CallbackReceiverAnswer): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
