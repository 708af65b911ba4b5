import { readLimited } from '../../internal/read-limited.js';
import type { CallbackTrace } from '../../internal/tracing.js';
import { NOT_APPLIED, NOT_POST, TOO_LARGE_ANSWER, unreadable } from './answer.js';
import type { CallbackReceiverAnswer, Receiving } from './answer.js';

/**
 * `receiver.handle`: answers a Fetch API `Request` (Hono, Next.js, Workers, Bun, Deno). The body
 * is read once, sized as it is read, and handed to the receive path.
 */
export async function handleFetch(receiving: Receiving, request: Request, trace: CallbackTrace): Promise<Response> {
  let reply: CallbackReceiverAnswer;
  if (request.method !== 'POST') reply = NOT_POST;
  else if (request.bodyUsed) {
    receiving.report(new TypeError('receiver.handle: the request body was already read; pass the request before anything reads it'), { callback: undefined, phase: 'request' });
    reply = NOT_APPLIED;
  } else {
    const body = await readLimited(request.body, request.headers.get('content-length'), receiving.maxBodyBytes).catch((error: unknown) => unreadable(receiving.logger, error));
    reply = body === undefined ? TOO_LARGE_ANSWER : body instanceof Uint8Array ? await receiving.receiveSized({ headers: request.headers, body }, trace) : body;
  }
  trace.answered(reply);
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
