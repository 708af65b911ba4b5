/*
 * What the spec does not show about each operation, and the choice payorch makes (the rows of
 * docs/spec-gaps.md that concern one operation), keyed by the document's operationId.
 */

const POST_ASSUMED = 'the HTTP method (the endpoint table marks it —); payorch sends POST, as every provider sample does.';
const CREDENTIAL_ASSUMED = 'the headers and hash (spec 5.1 rule 6); payorch uses the credential hash with X-Credential-Key, as for the bank channel.';
const DEPOSIT_BODY_ASSUMED = "the request body (spec 4.1); payorch sends the bank deposit's fields: fullname, username, user_id, amount.";
const NO_MINIMUM = 'a minimum amount (spec 8); payorch sends any amount above 0 and lets the gateway bounds decide.';
const DEALER_POST = 'the HTTP method (spec 4.13 marks it —); payorch sends POST with a JSON body, as every body-carrying sample does.';
const DEALER_GET = 'the HTTP method (spec 4.13 marks it —); payorch sends GET, a read without parameters.';

export const NOT_SHOWN: Readonly<Record<string, readonly string[]>> = {
  'provider.eiban.startDeposit': [POST_ASSUMED],
  'provider.eiban.startWithdraw': [POST_ASSUMED, 'the recipient IBAN length (stated for manual withdrawals only); payorch applies 15 to 34 characters.'],
  'provider.creditCard.getStatus': ['the hash (spec 5.1 rule 5); payorch uses the basic hash, as for /credit-card/payment.'],
  'provider.thirdParty.bank.startDeposit': [POST_ASSUMED],
  'provider.thirdParty.bank.listGateways': [POST_ASSUMED],
  'provider.thirdParty.bank.startWithdrawal': [POST_ASSUMED, "whether account_holder (listed in gateways' required_fields) belongs to the body; payorch sends it only when given."],
  'provider.thirdParty.crypto.startDeposit': [POST_ASSUMED, CREDENTIAL_ASSUMED, DEPOSIT_BODY_ASSUMED, NO_MINIMUM],
  'provider.thirdParty.crypto.listGateways': [POST_ASSUMED],
  'provider.thirdParty.crypto.startWithdrawal': [POST_ASSUMED, CREDENTIAL_ASSUMED, NO_MINIMUM],
  'provider.thirdParty.wallet.startDeposit': [POST_ASSUMED, CREDENTIAL_ASSUMED, DEPOSIT_BODY_ASSUMED, NO_MINIMUM],
  'provider.thirdParty.wallet.listGateways': [POST_ASSUMED],
  'provider.thirdParty.wallet.startWithdrawal': [POST_ASSUMED, CREDENTIAL_ASSUMED, NO_MINIMUM, "whether account_holder belongs to the body; payorch sends it only when given."],
  'dealer.getSettings': [DEALER_GET, 'responses to failed dealer authentication; payorch reads them as spec 7.1.'],
  'dealer.manualIban.deposit': [DEALER_POST, 'a minimum amount (spec 8); payorch requires only a positive amount.'],
  'dealer.manualIban.withdraw': [DEALER_POST, 'a minimum amount (spec 8); payorch requires only a positive amount.'],
  'dealer.eibans.list': [DEALER_GET],
  'dealer.transactions.list': [
    'nothing, but one limit cannot be written as a schema: end_date at most 3 days after start_date (spec 8; payorch refuses a longer range before sending). Pages hold 100 records.',
'which body field carries the error code of 7.4 and its HTTP status; payorch reads `code`, `error_code` or a code-shaped `error`, under any status.'],
  'dealer.transfers.send': [DEALER_POST, 'which body field carries the error code of 7.4 and its HTTP status; payorch reads `code`, `error_code` or a code-shaped `error`, under any status.'],
  'dealer.creditCard.createPayment': [DEALER_POST],
};

/** Gaps that concern the whole service rather than one operation. */
export const SPEC_GAPS: readonly string[] = [
  'HTTP status codes of errors other than those of 7.1 (7.4): every non-2xx answer and every `success: false` body is a failure.',
  'Rate limits (8): a 429 is a rate limit; only read-only calls are retried.',
  'Retry policy of callbacks (6.6): the same callback may arrive more than once; process each tracking_code + status once.',
  'Whether a retried callback is re-signed (6.6): payorch accepts a genuine callback well after it was signed.',
  'Site integration, the site-creation endpoint, and the fields of credential records (1, 2.2, 4.1): not described here.',
  'Versioning (9): the paths carry no version; this document describes the spec payorch implements.',
];
