import { describe, expect, test } from 'vitest';
import { MAX_CALLBACK_BODY_BYTES, readCallbackBody } from '../../src/callbacks/body.js';
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
