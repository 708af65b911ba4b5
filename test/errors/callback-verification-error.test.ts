import { describe, expect, test } from 'vitest';
import { CallbackVerificationError, PayorchError } from '../../src/index.js';
import type { CallbackVerificationReason } from '../../src/index.js';

describe('CallbackVerificationError', () => {
  test.each<[CallbackVerificationReason, number]>([
    ['missing_header', 401],
    ['repeated_header', 401],
    ['empty_header', 401],
    ['invalid_signature', 401],
    ['timestamp_out_of_tolerance', 401],
    ['api_key_mismatch', 401],
    ['merchant_mismatch', 401],
    ['seal_key_expired', 401],
    ['seal_key_unknown', 401],
    ['malformed_body', 400],
    ['invalid_tracking_code', 400],
    ['invalid_status', 400],
    ['kind_mismatch', 400],
  ])('%s tells the receiver to answer %i', (reason, status) => {
    const error = new CallbackVerificationError(reason, 'what failed');
    expect(error.status).toBe(status);
    expect(error.reason).toBe(reason);
  });

  test('is a PayorchError named CallbackVerificationError whose message names the reason', () => {
    const error = new CallbackVerificationError('invalid_signature', 'the hash does not match');
    expect(error).toBeInstanceOf(PayorchError);
    expect(error.name).toBe('CallbackVerificationError');
    expect(error.message).toBe('Callback refused (invalid_signature): the hash does not match');
    expect(error.issues).toEqual([]);
  });

  test('keeps the issues of a schema failure', () => {
    const issues = [{ field: 'amount', rule: 'invalid_union', message: 'Invalid input' }];
    expect(new CallbackVerificationError('malformed_body', 'bad', issues).issues).toEqual(issues);
  });
});
