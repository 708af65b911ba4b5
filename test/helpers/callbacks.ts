import { readFileSync } from 'node:fs';
import { CallbackVerificationError } from '../../src/index.js';
import { sha256 } from './wire.js';

/** A callback vector of test/fixtures/vectors/signing.json. */
export interface CallbackVector {
  readonly name: string;
  readonly api_key: string;
  readonly secret_key: string;
  readonly tracking_code: string;
  readonly status: string;
  readonly timestamp: string;
  readonly expected: string;
}

export const callbackVectors = (
  JSON.parse(readFileSync(new URL('../fixtures/vectors/signing.json', import.meta.url), 'utf8')) as { callbacks: CallbackVector[] }
).callbacks;

/** The clock of the tests: 2025-11-22T11:52:25Z, the vectors' provider timestamp. */
export const NOW_SECONDS = 1763812345;
export const now = (): number => NOW_SECONDS * 1000;

/** Unsigned bodies of the four callbacks, with the fields of spec 6.2 to 6.5. */
export const unsigned = {
  deposit: {
    tracking_code: 'MAN-a8Xk29Qp-1763812000',
    tx_id: 'tx-9001',
    status: 'completed',
    amount: 250,
    username: 'ada',
    fullname: 'Ada Yılmaz',
    user_id: 'u-1',
    site_id: 7,
  },
  withdrawal: {
    tracking_code: 'EIBAN-WIT-7hQ2mZ-1763811111',
    tx_id: 'tx-9002',
    status: 'rejected',
    amount: 1200.5,
    username: 'ada',
    fullname: 'Ada Yılmaz',
    user_id: 'u-1',
    site_id: 7,
    iban: 'TR330006100519786457841326',
  },
  creditCard: {
    tracking_code: 'CC-p4Lm8-1763812100',
    order_id: 'ORD-55',
    status: 'success',
    amount: 150,
    currency: 'TRY',
    username: 'ada',
    user_id: 'u-1',
    site_id: 7,
    customer_name: 'Ada Yılmaz',
    customer_email: 'ada@example.com',
  },
  dealerCreditCard: {
    success: true,
    tracking_code: 'CC-k3J9x-1700000000',
    order_id: 'ORD-77',
    status: 'success',
    amount: 500,
    currency: 'TRY',
    customer_name: 'Ada Yılmaz',
    customer_email: 'ada@example.com',
    customer_phone: '+905551112233',
    status_message: 'Payment completed',
    completed_at: '2025-11-22T11:52:00+00:00',
  },
} as const;

/**
 * Signs `fields` the way spec 5.3 says, with a hash computed here independently of the SDK:
 * the body gets `timestamp` and `hash`, the headers carry the same values.
 */
export function sign(
  fields: Readonly<Record<string, unknown>> & { readonly tracking_code: string; readonly status: string },
  credentials: { readonly apiKey: string; readonly secretKey: string },
  timestamp: number = NOW_SECONDS,
): { headers: Record<string, string>; body: Record<string, unknown>; hash: string } {
  const hash = sha256(credentials.apiKey, credentials.secretKey, fields.tracking_code, fields.status, String(timestamp));
  return {
    headers: { 'X-Api-Key': credentials.apiKey, 'X-Timestamp': String(timestamp), 'X-Hash': hash },
    body: { ...fields, timestamp, hash },
    hash,
  };
}

/** Runs `run` and returns the CallbackVerificationError it throws; fails the test on anything else. */
export function refusal(run: () => unknown): CallbackVerificationError {
  try {
    run();
  } catch (error) {
    if (error instanceof CallbackVerificationError) return error;
    throw error;
  }
  throw new Error('accepted what should have been refused');
}

/** A genuine delivery with unsigned fields changed, as a replayer would send it: its signature still verifies. */
export function withUnsigned(delivery: { readonly headers: Record<string, string>; readonly body: string }, change: Readonly<Record<string, unknown>>): { headers: Record<string, string>; body: string } {
  return { headers: delivery.headers, body: JSON.stringify({ ...(JSON.parse(delivery.body) as object), ...change }) };
}
