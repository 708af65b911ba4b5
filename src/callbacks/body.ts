import { CallbackVerificationError } from '../errors/callback-verification-error.js';

/** A body the service could plausibly send is under 2 KB; anything past this is refused unread. */
export const MAX_CALLBACK_BODY_BYTES = 64 * 1024;

/** The body of a callback: the raw text, the raw bytes, or the object a framework already parsed. */
export type CallbackBody = string | Uint8Array | ArrayBuffer | Readonly<Record<string, unknown>>;

function malformed(message: string): CallbackVerificationError {
  return new CallbackVerificationError('malformed_body', message);
}

function tooLarge(bytes: number): CallbackVerificationError {
  return malformed(`the body is ${bytes} bytes, more than the ${MAX_CALLBACK_BODY_BYTES} a callback can be`);
}

// One decoder for every body: a call without `stream` starts afresh, and making one costs more
// than decoding a callback.
let utf8: TextDecoder | undefined;

function decode(bytes: Uint8Array): string {
  if (bytes.byteLength > MAX_CALLBACK_BODY_BYTES) throw tooLarge(bytes.byteLength);
  try {
    utf8 ??= new TextDecoder('utf-8', { fatal: true });
    return utf8.decode(bytes);
  } catch {
    throw malformed('the body is not UTF-8 text');
  }
}

/** UTF-8 length of `text` without encoding it (no Buffer: this runs on every runtime). @internal */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // 0x80..0x7ff take 2 bytes, the rest of the BMP 3; a surrogate pair's 4 are 2 + 2.
    if (unit >= 0x80) bytes += unit >= 0x800 && (unit < 0xd800 || unit > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

function parseJson(text: string): unknown {
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a long text needs counting.
  if (text.length * 3 > MAX_CALLBACK_BODY_BYTES) {
    const bytes = utf8Length(text);
    if (bytes > MAX_CALLBACK_BODY_BYTES) throw tooLarge(bytes);
  }
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message may quote the body, which holds the hash: say only what failed.
    throw malformed(text.trim() === '' ? 'the body is empty' : 'the body is not valid JSON');
  }
}

/**
 * Turns any accepted body form into the JSON object it holds.
 *
 * @throws {CallbackVerificationError} `malformed_body` for anything that is not a JSON object
 * of at most {@link MAX_CALLBACK_BODY_BYTES} bytes
 */
export function readCallbackBody(body: unknown): Record<string, unknown> {
  let value: unknown = body;
  if (typeof body === 'string') value = parseJson(body);
  else if (body instanceof ArrayBuffer) value = parseJson(decode(new Uint8Array(body)));
  else if (ArrayBuffer.isView(body)) value = parseJson(decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength)));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed(value === undefined || value === null ? 'there is no body' : 'the body is not a JSON object');
  }
  return value as Record<string, unknown>;
}
