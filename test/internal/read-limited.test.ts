import { describe, expect, test } from 'vitest';
import { readLimited } from '../../src/internal/read-limited.js';

function streamOf(chunks: readonly string[]): { stream: ReadableStream<Uint8Array>; state: { pulled: number; cancelled: boolean } } {
  const state = { pulled: 0, cancelled: false };
  const queue = chunks.map((chunk) => new TextEncoder().encode(chunk));
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulled += 1;
        const next = queue.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));

describe('readLimited', () => {
  test('joins the chunks of a body within the limit', async () => {
    const { stream } = streamOf(['{"a":', '1', '}']);
    expect(text(await readLimited(stream, null, 7))).toBe('{"a":1}');
  });

  test('returns a body that arrives as one chunk, a view into a larger buffer, byte for byte', async () => {
    const backing = new TextEncoder().encode('xx{"amount":"12.50"}yy');
    const view = backing.subarray(2, backing.length - 2);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(view);
        controller.close();
      },
    });
    expect(text(await readLimited(stream, String(view.byteLength), 100))).toBe('{"amount":"12.50"}');
  });

  test('returns no bytes for no body', async () => {
    expect(await readLimited(null, null, 10)).toEqual(new Uint8Array());
  });

  test('returns undefined and cancels the stream once the count passes the limit, reading no further', async () => {
    const { stream, state } = streamOf(['12345', '67890', 'abcde', 'fghij']);
    expect(await readLimited(stream, null, 9)).toBeUndefined();
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBe(2);
  });

  test('returns undefined for a declared Content-Length over the limit without reading, and cancels', async () => {
    const { stream, state } = streamOf(['{}']);
    expect(await readLimited(stream, '11', 10)).toBeUndefined();
    expect(state.pulled).toBe(0);
    expect(state.cancelled).toBe(true);
  });

  test('ignores a Content-Length that is not a number and counts instead', async () => {
    const { stream } = streamOf(['{}']);
    expect(text(await readLimited(stream, 'many', 10))).toBe('{}');
  });
});
