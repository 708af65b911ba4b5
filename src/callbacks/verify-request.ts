import { readLimited } from '../core/read-limited.js';
import { CallbackVerificationError } from '../errors/callback-verification-error.js';
import { MAX_CALLBACK_BODY_BYTES } from './body.js';
import type { VerifiedCallback } from './schemas.js';
import { verifyCallback } from './verify.js';
import type { VerifyCallbackOptions } from './verify.js';

/**
 * Verifies a callback given as a Fetch API `Request` (Hono, Next.js route handlers, Bun, Deno,
 * workers): reads the raw body once, then does everything `verifyCallback` does.
 *
 * @throws {CallbackVerificationError} with the `reason` and the HTTP `status` to answer
 * @throws {TypeError} when the body was already read, or `request` is a Node `IncomingMessage`
 *   (use {@link verifyCallback} with `req.headers` and the raw body there)
 * @example
 * ```ts
 * export async function POST(request: Request): Promise<Response> {
 *   try {
 *     const callback = await verifyCallbackRequest(request, { apiKey, secretKey });
 *     await processOnce(callback);
 *     return Response.json({ success: true });
 *   } catch (error) {
 *     if (error instanceof CallbackVerificationError) return Response.json({ success: false }, { status: error.status });
 *     throw error;
 *   }
 * }
 * ```
 */
export async function verifyCallbackRequest(request: Request, options: VerifyCallbackOptions): Promise<VerifiedCallback> {
  const given: unknown = request;
  if (typeof (given as { headers?: { get?: unknown } } | null)?.headers?.get !== 'function') {
    // A Node IncomingMessage (node:http, Express, Fastify's req.raw) has plain-object headers and no Fetch API body.
    throw new TypeError(
      'verifyCallbackRequest takes a Fetch API Request (Hono, Next.js route handlers, workers, Bun, Deno); this looks like a Node IncomingMessage (node:http, Express, Fastify). Use verifyCallback({ headers: req.headers, body: rawBody }, options) there.',
    );
  }
  if (request.bodyUsed) throw new TypeError('verifyCallbackRequest: the request body was already read; pass the request before anything reads it');
  const body = await readLimited(request.body, request.headers.get('content-length'), MAX_CALLBACK_BODY_BYTES);
  if (body === undefined) {
    throw new CallbackVerificationError('malformed_body', `the body is larger than the ${MAX_CALLBACK_BODY_BYTES} bytes a callback can be`);
  }
  return verifyCallback({ headers: request.headers, body }, options);
}
