/**
 * Reads a body stream to its end, or stops and cancels it as soon as it is known to be larger
 * than `limit` bytes: from its Content-Length, or counted while reading. A huge or endless body
 * then costs at most `limit` bytes of memory.
 *
 * @returns the bytes, or `undefined` when the body is larger than `limit`
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, contentLength: string | null, limit: number): Promise<Uint8Array | undefined> {
  if (Number(contentLength ?? 0) > limit) {
    void body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (body === null) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/**
 * Joins chunks read from a stream, `size` bytes in all, into one array. Most bodies arrive as one
 * chunk (a 22 KB page and a callback do): that one is handed on rather than copied.
 */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const [first] = chunks;
  if (chunks.length === 1 && first !== undefined) return first;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
