import { describe, expect, test } from 'vitest';
import { MAX_CALLBACK_BODY_BYTES, readCallbackBody } from '../../src/webhooks/body.js';
import { readContentType } from '../../src/webhooks/headers.js';
import { decodeWindows1252 } from '../../src/internal/charset.js';
import { refusal } from '../helpers/callbacks.js';

const object = { tracking_code: 'MAN-a1-1763812000', note: 'ğüş' };
const text = JSON.stringify(object);


// A JSON object of exactly `bytes` bytes.
const sized = (bytes: number) => {
  const padding = bytes - JSON.stringify({ p: '' }).length;
  return JSON.stringify({ p: 'x'.repeat(padding) });
};

describe('readCallbackBody', () => {
  test.each([
    ['text', text],
    ['a Buffer', Buffer.from(text)],
    ['a Uint8Array view with an offset', new Uint8Array(Buffer.from(`[[${text}]]`)).subarray(2, 2 + Buffer.byteLength(text))],
    ['a DataView', new DataView(new TextEncoder().encode(text).buffer)],
    ['an ArrayBuffer', new TextEncoder().encode(text).buffer],
    ['bytes with a UTF-8 byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    ['a parsed object', object],
  ])('reads the JSON object from %s', (_name, body) => {
    expect(readCallbackBody(body)).toEqual(object);
  });

  test('accepts a body of exactly the limit and refuses one byte more, as text and as bytes', () => {
    expect(sized(MAX_CALLBACK_BODY_BYTES)).toHaveLength(MAX_CALLBACK_BODY_BYTES);
    expect(readCallbackBody(sized(MAX_CALLBACK_BODY_BYTES))).toHaveProperty('p');
    expect(refusal(() => readCallbackBody(sized(MAX_CALLBACK_BODY_BYTES + 1))).message).toContain('65537 bytes');
    expect(refusal(() => readCallbackBody(Buffer.from(sized(MAX_CALLBACK_BODY_BYTES + 1)))).message).toContain('65537 bytes');
  });

  test('counts the limit in UTF-8 bytes, not characters', () => {
    const multiByte = JSON.stringify({ p: 'ğ'.repeat(MAX_CALLBACK_BODY_BYTES / 2) });
    expect(multiByte.length).toBeLessThan(MAX_CALLBACK_BODY_BYTES);
    expect(refusal(() => readCallbackBody(multiByte)).reason).toBe('malformed_body');
  });

  test.each([
    ['empty text', '', 'the body is empty'],
    ['blank text', ' \n', 'the body is empty'],
    ['text that is not JSON', '{"tracking_code": ', 'not valid JSON'],
    ['a JSON array', '[]', 'not a JSON object'],
    ['a JSON string', '"text"', 'not a JSON object'],
    ['JSON null', 'null', 'there is no body'],
    ['undefined', undefined, 'there is no body'],
    ['a number', 42, 'not a JSON object'],
    ['an array', [object], 'not a JSON object'],
    ['bytes that are not UTF-8', new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]), 'not UTF-8'],
  ])('refuses %s as malformed_body', (_name, body, message) => {
    const error = refusal(() => readCallbackBody(body));
    expect(error.reason).toBe('malformed_body');
    expect(error.message).toContain(message);
  });

  test('does not quote the body in the message of a JSON error', () => {
    expect(refusal(() => readCallbackBody('{"hash":"c90d4cbba829"')).message).not.toContain('c90d4cbba829');
  });
});

describe('decodeWindows1252, the reading of last resort', () => {
  const every = Uint8Array.from({ length: 256 }, (_, byte) => byte);

  // The WHATWG index of 0x80..0x9f (https://encoding.spec.whatwg.org/index-windows-1252.txt).
  // Node 20's own TextDecoder('windows-1252') reads these bytes as ISO-8859-1 instead.
  const C1 = [
    0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
    0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
  ];

  test('reads every byte as the WHATWG encoding standard says, on any runtime', () => {
    const expected = Array.from(every, (byte) => (byte >= 0x80 && byte < 0xa0 ? (C1[byte - 0x80] ?? 0) : byte));
    expect(Array.from(decodeWindows1252(every), (char) => char.charCodeAt(0))).toEqual(expected);
  });

  test('gives each byte its own character, so the bytes can be told back from the text', () => {
    expect(new Set(decodeWindows1252(every)).size).toBe(256);
  });
});

describe('readCallbackBody given a charset', () => {
  const turkish = { fullname: 'Şükrü Öztürk' };
  // "Şükrü Öztürk" in windows-1254: Ş is 0xde, ü 0xfc, Ö 0xd6.
  const bytes = Uint8Array.from([...new TextEncoder().encode('{"fullname":"')].concat([0xde, 0xfc, 0x6b, 0x72, 0xfc, 0x20, 0xd6, 0x7a, 0x74, 0xfc, 0x72, 0x6b, 0x22, 0x7d]));

  test.each(['windows-1254', 'ISO-8859-9', 'latin5', 'l5'])('reads bytes declared as %s in that charset, and tells nothing', (charset) => {
    const told: unknown[] = [];
    expect(readCallbackBody(bytes, charset, (decoding) => told.push(decoding))).toEqual(turkish);
    expect(told).toEqual([]);
  });

  test('tells at most 64 characters of a label it does not know, which goes to a log line', () => {
    const told: { charset: string | undefined }[] = [];
    expect(readCallbackBody(bytes, 'x'.repeat(5000), (decoding) => told.push(decoding))).toEqual({ fullname: 'Þükrü Öztürk' });
    expect(told).toEqual([{ charset: `${'x'.repeat(64)}…`, decodedAs: 'windows-1252' }]);
  });

  test('refuses, after every reading, only what is no JSON in any charset', () => {
    const error = refusal(() => readCallbackBody(new Uint8Array([0x7b, 0xde]), 'windows-1254'));
    expect(error.reason).toBe('malformed_body');
    expect(error.message).toContain('not valid JSON');
  });
});

describe('readContentType', () => {
  test.each([
    ['a plain object in any letter case', { 'Content-TYPE': 'application/json; charset=latin5' }, 'application/json; charset=latin5'],
    ['an array of one', { 'content-type': ['text/plain'] }, 'text/plain'],
    ['a Fetch Headers', new Headers({ 'Content-Type': 'application/json' }), 'application/json'],
    ['two values (read as none)', { 'content-type': ['a/b', 'c/d'] }, undefined],
    ['no header', { 'x-hash': 'h' }, undefined],
    ['no headers', undefined, undefined],
  ])('reads %s', (_name, headers, expected) => {
    expect(readContentType(headers)).toBe(expected);
  });
});
