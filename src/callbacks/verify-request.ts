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
 * @throws {TypeError} when the body was already read
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
  if (request.bodyUsed) throw new TypeError('verifyCallbackRequest: the request body was already read; pass the request before anything reads it');
  const body = await readLimited(request.body, request.headers.get('content-length'), MAX_CALLBACK_BODY_BYTES);
  if (body === undefined) {
    throw new CallbackVerificationError('malformed_body', `the body is larger than the ${MAX_CALLBACK_BODY_BYTES} bytes a callback can be`);
  }
  return verifyCallback({ headers: request.headers, body }, options);
}
