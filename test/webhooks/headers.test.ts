import { describe, expect, test } from 'vitest';
import { readSignatureHeaders } from '../../src/webhooks/headers.js';
import { refusal } from '../helpers/callbacks.js';

const expected = { apiKey: 'key', timestamp: '1763812345', hash: 'abc' };


describe('readSignatureHeaders', () => {
  test.each([
    ['a plain object in mixed case', { 'X-Api-Key': 'key', 'x-TIMESTAMP': '1763812345', 'x-hash': 'abc' }],
    ['arrays of one value', { 'x-api-key': ['key'], 'x-timestamp': ['1763812345'], 'x-hash': ['abc'] }],
    ['a Fetch Headers', new Headers({ 'X-Api-Key': 'key', 'X-Timestamp': '1763812345', 'X-Hash': 'abc' })],
    ['a plain object with a header named "get"', { get: 'text', 'x-api-key': 'key', 'x-timestamp': '1763812345', 'x-hash': 'abc' }],
  ])('reads the three headers from %s', (_name, headers) => {
    expect(readSignatureHeaders(headers)).toEqual(expected);
  });

  test.each([
    ['undefined', undefined],
    ['null', null],
    ['an object without the three names', { host: 'shop.example', 'content-type': 'application/json' }],
    ['a Fetch Headers without them', new Headers({ host: 'shop.example' })],
    ['headers whose values are all undefined', { 'x-api-key': undefined, 'x-timestamp': undefined, 'x-hash': undefined }],
  ])('returns undefined (verify from the body) for %s', (_name, headers) => {
    expect(readSignatureHeaders(headers)).toBeUndefined();
  });

  test('names every header that is missing when only some are present', () => {
    expect(refusal(() => readSignatureHeaders({ 'x-hash': 'abc' })).message).toContain('X-Api-Key, X-Timestamp are missing');
    expect(refusal(() => readSignatureHeaders({ 'x-hash': 'abc', 'x-api-key': 'key' })).message).toContain('X-Timestamp is missing');
  });

  test.each([
    ['a header given twice in an array', { 'x-api-key': 'key', 'x-timestamp': '1763812345', 'x-hash': ['abc', 'abc'] }, 'repeated_header', 'X-Hash is given 2 times'],
    ['a header given under two letter cases', { 'x-api-key': 'key', 'X-API-KEY': 'key', 'x-timestamp': '1763812345', 'x-hash': 'abc' }, 'repeated_header', 'X-Api-Key is given 2 times'],
    ['an empty header', { 'x-api-key': 'key', 'x-timestamp': '', 'x-hash': 'abc' }, 'empty_header', 'X-Timestamp is empty'],
    ['a header that is a number', { 'x-api-key': 'key', 'x-timestamp': 1763812345, 'x-hash': 'abc' }, 'empty_header', 'X-Timestamp is not text'],
    ['an array with a non-string', { 'x-api-key': [42], 'x-timestamp': '1763812345', 'x-hash': 'abc' }, 'empty_header', 'X-Api-Key is not text'],
    ['headers that are not an object', 'x-hash: abc', 'missing_header', 'the headers are not an object'],
  ])('refuses %s as %s', (_name, headers, reason, message) => {
    const error = refusal(() => readSignatureHeaders(headers));
    expect(error.reason).toBe(reason);
    expect(error.message).toContain(message);
  });
});
