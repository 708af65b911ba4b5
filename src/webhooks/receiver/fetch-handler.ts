import { RequestValidationError } from '../../errors/error.js';
import { readLimited } from '../../internal/read-limited.js';
import { NOT_APPLIED, NOT_POST, TOO_LARGE } from './answers.js';
import { fetchAnswer } from './answer.js';
import type { CallbackReceiverAnswer } from './answer.js';
import { unreadableBody } from './receive-body.js';
import type { EntrySettings } from './receive-body.js';

/*
 * `receiver.handle`, the entry point for a Fetch API `Request` (Hono, Next.js route handlers,
 * Cloudflare Workers, Bun, Deno): the body is read once, sized as it is read.
 */

/** `receiver.handle`: one span per request. Never rejects. */
export function fetchHandler(entry: EntrySettings): (request: Request) => Promise<Response> {
  const { maxBodyBytes, verifyAndApply, report, logger, spans } = entry;
  return (request) =>
    spans.inReceiveSpan(async (trace) => {
      let reply: CallbackReceiverAnswer;
      if (!isFetchRequest(request)) {
        // Handed something else (a Node request, nothing): told as misuse, answered 500, never a rejection.
        report(
          new RequestValidationError('receiver.handle', [{ field: 'request', rule: 'invalid_argument', message: 'must be a Fetch API Request (Hono, Next.js route handlers, workers, Bun, Deno); node:http, Express and Fastify use receiver.nodeHandler' }]),
          { callback: undefined, phase: 'request' },
        );
        reply = NOT_APPLIED;
      } else if (request.method !== 'POST') reply = NOT_POST;
      else if (request.bodyUsed) {
        // The caller's mistake, not the service's: told as misuse, and answered 500 so that the callback comes again.
        report(
          new RequestValidationError('receiver.handle', [{ field: 'request', rule: 'invalid_argument', message: 'its body was already read; pass the request before anything reads it' }]),
          { callback: undefined, phase: 'request' },
        );
        reply = NOT_APPLIED;
      } else {
        const body = await readLimited(request.body, request.headers.get('content-length'), maxBodyBytes).catch((error: unknown) => unreadableBody(logger, error));
        reply = body === undefined ? TOO_LARGE : body instanceof Uint8Array ? await verifyAndApply({ headers: request.headers, body }, trace) : body;
      }
      trace.answered(reply);
      return fetchAnswer(reply);
    });
}

function isFetchRequest(value: unknown): value is Request {
  const candidate = value as Partial<Record<'method' | 'headers', unknown>> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.method === 'string' && typeof (candidate.headers as Partial<Record<'get', unknown>> | undefined)?.get === 'function';
}
