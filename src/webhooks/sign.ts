import { checkOptions, declareOptions, takingSandboxAccounts } from '../core/option-checks.js';
import { callbackHash } from '../internal/signer.js';
import { RequestValidationError } from '../errors/error.js';

/**
 * The body of a callback to sign: the fields of one of the four callbacks of spec 6, without
 * `timestamp` and `hash` (they are set by {@link signCallback}; values given are replaced).
 */
export interface SignCallbackPayload {
  readonly tracking_code: string;
  readonly status: string;
  readonly [field: string]: unknown;
}

/** Keys and clock of {@link signCallback}. */
export interface SignCallbackOptions {
  /**
   * The API key of the account the callback is for; sent as X-Api-Key.
   * @example 'prov_api_4f9a1c'
   */
  readonly apiKey: string;
  /**
   * The secret key of the same account.
   * @example 'prov_secret_Zt8qL2mN'
   */
  readonly secretKey: string;
  /**
   * The Unix time in seconds to sign with.
   * @default the current time
   * @example 1763812345
   */
  readonly timestamp?: number | undefined;
}

/** A callback as the service would POST it. */
export interface SignedCallback {
  /** Content-Type, X-Api-Key, X-Timestamp and X-Hash (spec 6.1), ready for `fetch`. */
  readonly headers: {
    readonly 'Content-Type': 'application/json';
    readonly 'X-Api-Key': string;
    readonly 'X-Timestamp': string;
    readonly 'X-Hash': string;
  };
  /** The JSON body: the payload with `timestamp` (integer) and `hash` set to the signed values. */
  readonly body: string;
}

/** signCallback's options; a sandbox account is commonly given as they are. @internal */
export const SIGN_OPTIONS = /* @__PURE__ */ takingSandboxAccounts(
  /* @__PURE__ */ declareOptions<SignCallbackOptions>()([
    { name: 'apiKey', rule: { type: 'key' }, required: true, env: 'PAYORCH_PROVIDER_API_KEY or PAYORCH_DEALER_API_KEY' },
    { name: 'secretKey', rule: { type: 'key' }, required: true, env: 'PAYORCH_PROVIDER_SECRET_KEY or PAYORCH_DEALER_SECRET_KEY' },
    { name: 'timestamp', rule: { type: 'number', min: 0, max: 9_007_199_254_740_991, integer: true }, note: 'Unix seconds' },
  ]),
);

/**
 * Signs a callback as the service does (spec 5.3): X-Hash = SHA-256(api_key + secret_key +
 * tracking_code + status + timestamp), the same value and timestamp in the body. For tests of
 * your receiver and for the sandbox; `verifyCallback` accepts what it returns.
 *
 * This signature is stable: the sandbox delivers its callbacks with it.
 *
 * @throws {RequestValidationError} (`invalid_option`) when a key is missing or empty, the
 * timestamp is not Unix seconds, or an option is not one of these
 * @throws {TypeError} when the signed fields are not strings
 * @example
 * ```ts
 * import { signCallback } from 'payorch';
 * declare const apiKey: string;
 * declare const secretKey: string;
 * const { headers, body } = signCallback(
 *   { tracking_code: 'MAN-a8Xk29Qp-1763812000', status: 'completed', amount: 250, site_id: 7 },
 *   { apiKey, secretKey },
 * );
 * await fetch('http://127.0.0.1:3000/webhooks/payorch', { method: 'POST', headers, body });
 * ```
 */
export function signCallback(payload: SignCallbackPayload, options: SignCallbackOptions): SignedCallback {
  // First: a misspelt timestamp would sign with the current time instead.
  checkOptions('signCallback', options, SIGN_OPTIONS);
  const { apiKey, secretKey } = options;
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const { tracking_code: trackingCode, status } = (typeof payload === 'object' && (payload as unknown) !== null ? payload : {}) as Partial<SignCallbackPayload>;
  if (typeof trackingCode !== 'string' || typeof status !== 'string') {
    const wrong = Object.entries({ tracking_code: trackingCode, status }).filter(([, value]) => typeof value !== 'string');
    throw new RequestValidationError('signCallback', wrong.map(([field]) => ({ field: `payload.${field}`, rule: 'invalid_argument', message: 'must be a string' })));
  }
  const hash = callbackHash({ apiKey, secretKey }, trackingCode, status, String(timestamp));
  return {
    headers: { 'Content-Type': 'application/json', 'X-Api-Key': apiKey, 'X-Timestamp': String(timestamp), 'X-Hash': hash },
    body: JSON.stringify({ ...payload, timestamp, hash }),
  };
}
