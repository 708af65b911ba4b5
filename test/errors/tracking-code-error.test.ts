import { describe, expect, test } from 'vitest';
import { PayorchError, TrackingCodeError } from '../../src/index.js';

describe('TrackingCodeError', () => {
  test('is a PayorchError named TrackingCodeError that keeps the value and names the expected form', () => {
    const error = new TrackingCodeError('ORDER-42');
    expect(error).toBeInstanceOf(PayorchError);
    expect(error.name).toBe('TrackingCodeError');
    expect(error.value).toBe('ORDER-42');
    expect(error.message).toContain('"ORDER-42"');
    expect(error.message).toContain('EIBAN-WIT');
  });

  test('cuts a long value to 64 characters, in the message too', () => {
    const error = new TrackingCodeError('x'.repeat(1000));
    expect(error.value).toHaveLength(64);
    expect(error.message).not.toContain('x'.repeat(65));
  });

  test('names the type of a value that is not a string', () => {
    expect(new TrackingCodeError(42).value).toBe('(number)');
  });
});
