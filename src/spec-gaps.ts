/*
 * What the spec does not show about one endpoint or a few, and the choice payorch makes: one
 * object per gap, attached to the endpoint rows of src/tools/registry/index.ts that it concerns. The
 * OpenAPI document's per-operation notes and the endpoint tables of docs/spec-gaps.md are made
 * from these rows (test/docs/spec-gaps.test.ts keeps the document in step).
 */

/** One row of docs/spec-gaps.md: what the spec lacks, what payorch assumes, the override, the tests. */
export interface SpecGap {
  /** Sections of the spec concerned (`4.1, 4.2`). */
  readonly spec: string;
  readonly gap: string;
  readonly assumes: string;
  readonly override: string;
  /** Test files that pin the choice. */
  readonly tests: string;
}

export const EIBAN_THIRD_PARTY_METHOD: SpecGap = {
  spec: '4.1, 4.2',
  gap: 'Method of the E-IBAN and third-party endpoints (marked —)',
  assumes: 'POST, like every provider endpoint with a sample.',
  override: "`provider.request({ method: 'GET', ... })`",
  tests: 'test/provider/eiban.test.ts, test/provider/third-party/*.test.ts',
};

export const CARD_STATUS_HASH: SpecGap = {
  spec: '5.1 rule 5',
  gap: 'Hash of /credit-card/status',
  assumes: 'The basic hash, as for /credit-card/payment; no X-Credential-Key.',
  override: "`provider.request({ method: 'POST', path: '/credit-card/status', hash: 'credential', body })`",
  tests: 'test/provider/credit-card.test.ts',
};

export const CRYPTO_WALLET_HASH: SpecGap = {
  spec: '5.1 rule 6',
  gap: 'Headers and hash of the crypto and wallet start-deposit and start-withdrawal',
  assumes: 'The credential hash with X-Credential-Key, as for bank.',
  override: "`provider.request({ ..., hash: 'basic' })`",
  tests: 'test/provider/third-party/crypto.test.ts, test/provider/third-party/wallet.test.ts',
};

export const CRYPTO_WALLET_DEPOSIT_BODY: SpecGap = {
  spec: '4.1',
  gap: 'Body of the crypto and wallet start-deposit',
  assumes: "The bank deposit's fields: fullname, username, user_id, amount; nothing else is accepted.",
  override: '`provider.request()` with any body',
  tests: 'test/provider/third-party/crypto.test.ts, test/provider/third-party/wallet.test.ts',
};

export const CRYPTO_WALLET_MINIMUM: SpecGap = {
  spec: '8',
  gap: 'Minimum amount of crypto and wallet deposits and withdrawals',
  assumes: 'No minimum of 1: any amount above 0 is sent; the gateway bounds decide.',
  override: '—',
  tests: 'test/provider/third-party/crypto.test.ts (sends 0.25, refuses 0), test/provider/third-party/wallet.test.ts',
};

export const RECIPIENT_IBAN_LENGTH: SpecGap = {
  spec: '4.7, 4.10, 8',
  gap: 'Length of the E-IBAN and third-party bank recipient IBAN (stated for manual withdrawals only)',
  assumes: '15 to 34 characters, as for manual withdrawals, sent unchanged.',
  override: '`provider.request()`',
  tests: 'test/provider/eiban.test.ts, test/provider/third-party/bank.test.ts',
};

export const GATEWAY_BOUNDS: SpecGap = {
  spec: '8, 2.5',
  gap: "Whether the client checks a gateway's min_amount, max_amount and required_fields",
  assumes: 'Not checked: the bounds may be stale, and the service refuses (usually `UnprocessableEntityError`). The examples check them first.',
  override: 'Check `gateways.list()` yourself',
  tests: 'test/provider/third-party/bank.test.ts (an amount above the maximum is sent)',
};

export const BANK_ACCOUNT_HOLDER: SpecGap = {
  spec: '2.5, 4.10',
  gap: 'Bank gateways list `account_holder` in required_fields, the bank withdrawal body does not',
  assumes: '`account_holder` is an optional field of the bank withdrawal, sent only when given (non-blank).',
  override: '`provider.request()`',
  tests: 'test/provider/third-party/bank.test.ts',
};

export const WALLET_ACCOUNT_HOLDER: SpecGap = {
  spec: '2.5, 4.12',
  gap: 'Some wallet gateways require `account_holder`, the wallet withdrawal body does not list it',
  assumes: '`account_holder` is an optional field of the wallet withdrawal, sent only when given (non-blank).',
  override: '`provider.request()`',
  tests: 'test/provider/third-party/wallet.test.ts',
};

export const GATEWAY_ID_RANGE: SpecGap = {
  spec: '2.5, 4.10-4.12',
  gap: 'Range of `gateway_id`',
  assumes: 'A positive integer, as a gateway `id` (2.5); anything else is refused before sending.',
  override: '`provider.request()`',
  tests: 'test/provider/third-party/bank.test.ts, test/provider/third-party/crypto.test.ts',
};

export const EMPTY_BODY_CONTENT_TYPE: SpecGap = {
  spec: '4.3, 4.4',
  gap: 'Content-Type of requests with no body (welcome, sites, gateways)',
  assumes: '`application/json` is sent on every request (5.1 lists it for all), with an empty body.',
  override: '— (5.1 requires it)',
  tests: 'test/provider/account.test.ts',
};

export const DEALER_GET: SpecGap = {
  spec: '4.13',
  gap: 'Method of /settings and /eibans',
  assumes: 'GET: reads without parameters.',
  override: "`dealer.request({ method: 'POST', path: '/settings', resendable: true })`",
  tests: 'test/dealer/settings.test.ts, test/dealer/eibans.test.ts',
};

export const DEALER_POST: SpecGap = {
  spec: '4.13',
  gap: 'Method of /manual-iban/deposit, /manual-iban/withdraw, /send-money, /credit-card/payment',
  assumes: 'POST with a JSON body, as every body-carrying sample of the spec.',
  override: '`dealer.request({ method, path, query })`',
  tests: 'test/dealer/manual-iban.test.ts, test/dealer/transfers.test.ts, test/dealer/credit-card.test.ts',
};

export const DEALER_CODE_FIELD: SpecGap = {
  spec: '7.4',
  gap: 'Which body field carries a dealer code',
  assumes: '`code`, then `error_code`, then `error` when it is shaped like a code (`A_B`); `APIError.code` holds it.',
  override: '`error.body` keeps the whole body.',
  tests: 'test/dealer/transfers.test.ts, test/dealer/transactions.test.ts',
};

export const DEALER_CODE_STATUS: SpecGap = {
  spec: '7.4',
  gap: 'HTTP status of a dealer code',
  assumes: 'Any: a 4xx, or 200 with `success: false`; the error is the status\'s `APIError` subclass, with `code`.',
  override: '`error.status`, `error.body`',
  tests: 'test/dealer/transfers.test.ts, test/dealer/transactions.test.ts',
};

export const DEALER_MANUAL_MINIMUM: SpecGap = {
  spec: '8',
  gap: 'Minimum of dealer manual IBAN deposits and withdrawals',
  assumes: 'Only a positive amount is required; the service decides the rest.',
  override: '`dealer.request()` with any body',
  tests: 'test/dealer/manual-iban.test.ts',
};

export const DEALER_RECIPIENT_IBAN: SpecGap = {
  spec: '4.13',
  gap: 'Rules of the dealer recipient IBAN',
  assumes: "15 to 34 characters, as the provider's (4.6); the service checks the checksum.",
  override: '`dealer.request()` with any body',
  tests: 'test/dealer/manual-iban.test.ts, test/dealer/transfers.test.ts',
};

export const DEALER_CARD_CONTACT: SpecGap = {
  spec: '4.13',
  gap: 'Format of dealer card `email` and `phone`',
  assumes: 'Non-empty strings; their format is left to the service.',
  override: '`dealer.request()` with any body',
  tests: 'test/dealer/credit-card.test.ts',
};

export const TRANSACTION_RANGE: SpecGap = {
  spec: '7.4, 8',
  gap: 'What "at most 3 days" counts',
  assumes: '`list()` refuses only an `end_date` more than 3 days after `start_date`, which every reading refuses; `iterate()` asks for 3 calendar days, which every reading accepts.',
  override: 'Call `list()` per range yourself.',
  tests: 'test/dealer/transactions.test.ts, test/dealer/date-windows.test.ts',
};
