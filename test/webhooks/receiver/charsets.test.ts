import { afterEach, describe, expect, test, vi } from 'vitest';
import { createCallbackReceiver, signCallback, verifyCallback } from '../../../src/index.js';
import type { CallbackReceiver, MemoryInboxContext, VerifiedCallback } from '../../../src/index.js';
import { unsigned } from '../../helpers/callbacks.js';
import { serveFetch, serveNode } from '../../helpers/serve.js';
import type { Served } from '../../helpers/serve.js';
import { PROVIDER } from '../../helpers/wire.js';

/*
 * A genuine callback whose body comes in the charset its Content-Type declares (older Turkish
 * stacks send windows-1254 or ISO-8859-9), or in a charset it does not declare, is decoded before
 * it is verified: the hash covers only ASCII fields, so no charset may keep it from applying.
 */

const NAMES = { fullname: 'Şükrü Çağlayan Öztürk', username: 'şükrü.öztürk', city: 'İğdır' } as const;

/** Encodes `text` in a single-byte charset by inverting the runtime's own decoder of it. */
function encodeSingleByte(text: string, label: string): Uint8Array<ArrayBuffer> {
  const decoded = new TextDecoder(label).decode(Uint8Array.from({ length: 256 }, (_, byte) => byte));
  const byteOf = new Map(Array.from(decoded, (char, byte) => [char, byte]));
  return Uint8Array.from(Array.from(text), (char) => {
    const byte = byteOf.get(char);
    if (byte === undefined) throw new Error(`${char} has no byte in ${label}`);
    return byte;
  });
}

const windows1254 = (text: string): Uint8Array<ArrayBuffer> => encodeSingleByte(text, 'windows-1254');

function delivery(trackingCode: string): { headers: Record<string, string>; body: string } {
  const signed = signCallback({ ...unsigned.deposit, ...NAMES, tracking_code: trackingCode }, { ...PROVIDER, timestamp: Math.floor(Date.now() / 1000) });
  // The Content-Type of each test is its own.
  const headers: Record<string, string> = { ...signed.headers };
  delete headers['Content-Type'];
  return { headers, body: signed.body };
}

// Each row: the Content-Type sent, how the body's text becomes bytes, and the names the handler must see.
const DECLARED: readonly [string, (text: string) => Uint8Array<ArrayBuffer>][] = [
  ['application/json; charset=windows-1254', windows1254],
  ['application/json; charset=ISO-8859-9', windows1254],
  ['application/json;charset="latin5"', windows1254],
  ['Application/JSON; Charset=WINDOWS-1254', windows1254],
  ['application/json; charset=utf-8', (text) => new TextEncoder().encode(text)],
  ['application/json', (text) => new TextEncoder().encode(text)],
  ['application/json; charset=utf-16le', (text) => new Uint8Array(Buffer.from(text, 'utf16le'))],
];

describe('the test encoder', () => {
  test('writes the Turkish letters as windows-1254 bytes', () => {
    expect([...windows1254('İğdır Ş')]).toEqual([0xdd, 0xf0, 0x64, 0xfd, 0x72, 0x20, 0xde]);
  });
});

type Serve = (receiver: CallbackReceiver<MemoryInboxContext>) => Promise<Served>;
const transports: [string, Serve][] = [
  ['nodeHandler on node:http', (receiver) => serveNode(receiver.nodeHandler)],
  ['handle on a Fetch API server', (receiver) => serveFetch(receiver.handle)],
];

describe.each(transports)('a receiver served by %s', (_name, serve) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  test.each(DECLARED)('applies a genuine callback sent as %s with its Turkish names intact', async (contentType, encode) => {
    const receiver = createCallbackReceiver({ ...PROVIDER, onError: (error) => { throw error; } });
    const applied: VerifiedCallback[] = [];
    receiver.on('deposit.completed', (callback) => void applied.push(callback));
    served = await serve(receiver);
    const { headers, body } = delivery('MAN-tr1254-1763812000');
    const response = await fetch(served.url, { method: 'POST', headers: { ...headers, 'content-type': contentType }, body: encode(body) });
    expect({ status: response.status, body: await response.text() }).toEqual({ status: 200, body: '{"success":true}' });
    expect(applied.map((callback) => callback.kind === 'deposit' && { fullname: callback.payload.fullname, username: callback.payload.username, city: (callback.payload as Record<string, unknown>)['city'] })).toEqual([NAMES]);
  });

  test('still refuses a windows-1254 body whose hash does not match', async () => {
    const receiver = createCallbackReceiver({ ...PROVIDER });
    const handler = vi.fn();
    receiver.on('*', handler);
    served = await serve(receiver);
    const { headers, body } = delivery('MAN-tr1254bad-1763812000');
    const forged = body.replace('"completed"', '"canceled"');
    const response = await fetch(served.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json; charset=windows-1254' }, body: windows1254(forged) });
    expect(response.status).toBe(401);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('a body that does not decode as declared', () => {
  const logger = () => ({ debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() });

  test.each([
    // No charset and not UTF-8: windows-1252 maps every byte, so the body reads and verifies.
    ['no charset, windows-1254 bytes', 'application/json', windows1254, 'Þükrü Çaðlayan Öztürk', { charset: undefined, decodedAs: 'windows-1252' }],
    ['a label no runtime knows, UTF-8 bytes', 'application/json; charset=x-klingon', (text: string) => new TextEncoder().encode(text), NAMES.fullname, { charset: 'x-klingon', decodedAs: 'utf-8' }],
    ['a label no runtime knows, windows-1254 bytes', 'application/json; charset=x-klingon', windows1254, 'Þükrü Çaðlayan Öztürk', { charset: 'x-klingon', decodedAs: 'windows-1252' }],
    ['utf-8 declared, windows-1254 bytes', 'application/json; charset=utf-8', windows1254, 'Þükrü Çaðlayan Öztürk', { charset: 'utf-8', decodedAs: 'windows-1252' }],
  ] as const)('%s: applied once, and the logger is warned of how it was read', async (_name, contentType, encode, fullname, warned) => {
    const log = logger();
    const receiver = createCallbackReceiver({ ...PROVIDER, logger: log });
    const names: (string | undefined)[] = [];
    receiver.on('deposit', (callback) => void names.push(callback.payload.fullname));
    const { headers, body } = delivery('MAN-nocharset-1763812000');
    const request = () => new Request('http://127.0.0.1/webhooks', { method: 'POST', headers: { ...headers, 'content-type': contentType }, body: encode(body) });
    expect((await receiver.handle(request())).status).toBe(200);
    expect((await receiver.handle(request())).status).toBe(200);
    expect(names).toEqual([fullname]);
    expect(log.warn).toHaveBeenCalledWith(warned, expect.stringContaining(warned.decodedAs));
    expect(JSON.stringify(log.warn.mock.calls)).not.toContain(PROVIDER.secretKey);
  });

  test('a label this runtime lacks reads as UTF-8, else windows-1252, never refused', () => {
    const { headers, body } = delivery('MAN-nolabel-1763812000');
    const bytes = windows1254(body);
    const Real = globalThis.TextDecoder;
    // A runtime without the legacy single-byte encodings (older edge runtimes).
    vi.stubGlobal(
      'TextDecoder',
      class extends Real {
        constructor(label = 'utf-8', options?: TextDecoderOptions) {
          if (!/^utf-?8$/i.test(label)) throw new RangeError(`${label} is not supported`);
          super(label, options);
        }
      },
    );
    try {
      const callback = verifyCallback({ headers: { ...headers, 'content-type': 'application/json; charset=windows-1254' }, body: bytes }, PROVIDER);
      expect(callback.kind === 'deposit' && callback.payload.fullname).toBe('Þükrü Çaðlayan Öztürk');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe('receive and verifyCallback given headers and bytes', () => {
  test.each(DECLARED)('decode %s', async (contentType, encode) => {
    const { headers, body } = delivery('MAN-receive-1763812000');
    const bytes = encode(body);
    const withType = { ...headers, 'Content-Type': contentType };
    const callback = verifyCallback({ headers: withType, body: bytes }, PROVIDER);
    expect(callback.kind === 'deposit' && callback.payload.fullname).toBe(NAMES.fullname);
    expect(verifyCallback({ headers: new Headers(withType), body: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, PROVIDER).kind).toBe('deposit');
    const receiver = createCallbackReceiver({ ...PROVIDER });
    const names: (string | undefined)[] = [];
    receiver.on('deposit', (applied) => void names.push(applied.payload.fullname));
    expect(await receiver.receive({ headers: withType, body: bytes })).toMatchObject({ status: 200 });
    expect(names).toEqual([NAMES.fullname]);
  });
});
