import { decodeWindows1252, decoderOf } from '../internal/charset.js';
import { CallbackVerificationError } from '../errors/error.js';

/** A body the service could plausibly send is under 2 KB; anything past this is refused unread. */
export const MAX_CALLBACK_BODY_BYTES = 64 * 1024;

/** The body of a callback: the raw text, the raw bytes, or the object a framework already parsed. */
export type CallbackBody = string | Uint8Array | ArrayBuffer | Readonly<Record<string, unknown>>;

function malformed(message: string): CallbackVerificationError {
  return new CallbackVerificationError('malformed_body', message);
}

function bodyTooLargeError(bytes: number): CallbackVerificationError {
  return malformed(`the body is ${bytes} bytes, more than the ${MAX_CALLBACK_BODY_BYTES} a callback can be`);
}

// One decoder for every body: a call without `stream` starts afresh, and making one costs more
// than decoding a callback.
let utf8: TextDecoder | undefined;

// WHATWG's labels of UTF-8: a body declaring one takes the shared decoder, none is made for it.
const UTF8_LABEL = /^(?:utf-?8|unicode-1-1-utf-8|unicode11utf8|unicode20utf8|x-unicode20utf8)$/i;

/** How the bytes of a body were read when not in the charset it declared (UTF-8 when it declares none). */
export interface BodyDecoding {
  /** The charset label Content-Type declared, as written; `undefined` when it declared none. */
  readonly charset: string | undefined;
  /** What the bytes were read as instead: `utf-8`, or `windows-1252`, which maps every byte. */
  readonly decodedAs: 'utf-8' | 'windows-1252';
}

// The body read from one decoding, or why it could not be.
function tryRead(decode: () => string, undecodable: string): { readonly value: unknown } | CallbackVerificationError {
  let text: string;
  try {
    text = decode();
  } catch {
    return malformed(undecodable);
  }
  try {
    return { value: parseJson(text, true) };
  } catch (error) {
    if (error instanceof CallbackVerificationError) return error;
    throw error;
  }
}

/*
 * The hash covers ASCII fields only, so no charset may keep a genuine callback from verifying: the
 * bytes are read in the declared charset (UTF-8 when none), else UTF-8, else windows-1252, and
 * the first that gives JSON is the body. A label this runtime does not know skips the first step.
 */
function readBytes(bytes: Uint8Array, label: string | undefined, onDecoded: ((decoding: BodyDecoding) => void) | undefined, sized: boolean): unknown {
  if (!sized && bytes.byteLength > MAX_CALLBACK_BODY_BYTES) throw bodyTooLargeError(bytes.byteLength);
  const declaredUtf8 = label === undefined || UTF8_LABEL.test(label.trim());
  const declared = declaredUtf8 ? undefined : decoderOf(label, true);
  // The label is the sender's text and goes to a log line: no real label is longer than this.
  const charset = label === undefined || label.length <= 64 ? label : `${label.slice(0, 64)}…`;
  let first: CallbackVerificationError | undefined;
  if (declared !== undefined) {
    const read = tryRead(() => declared.decode(bytes), `the body is not ${declared.encoding} text, as Content-Type says`);
    if (!(read instanceof CallbackVerificationError)) return read.value;
    first = read;
  }
  const asUtf8 = tryRead(() => (utf8 ??= new TextDecoder('utf-8', { fatal: true })).decode(bytes), 'the body is not UTF-8 text');
  if (!(asUtf8 instanceof CallbackVerificationError)) {
    if (!declaredUtf8) onDecoded?.({ charset, decodedAs: 'utf-8' });
    return asUtf8.value;
  }
  const asWindows1252 = tryRead(() => decodeWindows1252(bytes), 'the body is not windows-1252 text');
  if (!(asWindows1252 instanceof CallbackVerificationError)) {
    onDecoded?.({ charset, decodedAs: 'windows-1252' });
    return asWindows1252.value;
  }
  throw first ?? asUtf8;
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

function parseJson(text: string, sized: boolean): unknown {
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a long text needs counting. Decoded bytes were
  // counted as bytes.
  if (!sized && text.length * 3 > MAX_CALLBACK_BODY_BYTES) {
    const bytes = utf8Length(text);
    if (bytes > MAX_CALLBACK_BODY_BYTES) throw bodyTooLargeError(bytes);
  }
  try {
    return JSON.parse(text);
  } catch {
    // The parser's message may quote the body, which holds the hash: say only what failed.
    throw malformed(text.trim() === '' ? 'the body is empty' : 'the body is not valid JSON');
  }
}

/**
 * Turns any accepted body form into the JSON object it holds. Bytes are read in `charset` (the
 * label Content-Type declares); `onDecoded` hears when they could not be and were
 * read otherwise. `sized`: the caller already sized the body (a receiver reads at most
 * `maxBodyBytes`), so it is not sized again.
 *
 * @throws {CallbackVerificationError} `malformed_body` for anything that is not a JSON object
 * of at most {@link MAX_CALLBACK_BODY_BYTES} bytes
 */
export function readCallbackBody(body: unknown, charset?: string, onDecoded?: (decoding: BodyDecoding) => void, sized = false): Record<string, unknown> {
  let value: unknown = body;
  if (typeof body === 'string') value = parseJson(body, sized);
  else if (body instanceof ArrayBuffer) value = readBytes(new Uint8Array(body), charset, onDecoded, sized);
  else if (ArrayBuffer.isView(body)) value = readBytes(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), charset, onDecoded, sized);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed(value === undefined || value === null ? 'there is no body' : 'the body is not a JSON object');
  }
  return value as Record<string, unknown>;
}
