import { CallbackVerificationError } from '../errors/callback-verification-error.js';
import { MAX_CALLBACK_BODY_BYTES } from './body.js';
import type { VerifiedCallback } from './schemas.js';
import { verifyCallback } from './verify.js';
import type { VerifyCallbackOptions } from './verify.js';

const tooLarge = () => new CallbackVerificationError('malformed_body', `the body is larger than the ${MAX_CALLBACK_BODY_BYTES} bytes a callback can be`);

// Reads at most the limit and stops there, so that a huge or endless body costs nothing.
async function readLimited(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_CALLBACK_BODY_BYTES) throw tooLarge();
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_CALLBACK_BODY_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

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
  const body = await readLimited(request);
  return verifyCallback({ headers: request.headers, body }, options);
}
