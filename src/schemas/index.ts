/**
 * The wire schemas: every request, answer and callback body of the Provider API and Dealer API as
 * a zod schema, under the name of its type. Import them to validate a request before you send it,
 * to parse again an answer or a callback you kept (from a queue, a log, a database), or to compose
 * them into your own zod schemas.
 *
 * `payorch` exports the same names as types only, so `import type { ManualDeposit } from 'payorch'`
 * needs nothing from here. The schemas are zod/mini schemas: classic zod composes them
 * (`z.object({ answer: Welcome })`). Runs on every runtime, with the same objects the clients use.
 *
 * Answers and callbacks are parsed leniently: fields beyond the spec are kept, `null` in an
 * optional field reads as absent, and a numeric string becomes a number where the spec says
 * number. Requests are strict: an unknown field is refused.
 * @module payorch/schemas
 */

// Provider API
export {
  Welcome,
  Site,
  SiteList,
  SiteListParams,
} from '../provider/account.js';
export {
  DepositStatus,
  WithdrawalStatus,
} from '../provider/shared.js';
export {
  ManualDepositParams,
  ManualWithdrawalParams,
  ManualDeposit,
  ManualWithdrawal,
} from '../provider/manual.js';
export {
  EibanDepositParams,
  EibanWithdrawalParams,
  EibanDeposit,
  EibanWithdrawal,
} from '../provider/eiban.js';
export {
  CardPaymentParams,
  CardPaymentStatusParams,
  CardPayment,
  CardPaymentStatus,
  CardPaymentStatusResult,
} from '../provider/credit-card.js';
export {
  Gateway,
  GatewayList,
} from '../provider/third-party/gateways.js';
export {
  ThirdPartyDeposit,
  ThirdPartyWithdrawal,
} from '../provider/third-party/records.js';
export {
  BankDepositParams,
  BankWithdrawalParams,
} from '../provider/third-party/bank.js';
export {
  CryptoDepositParams,
  CryptoWithdrawalParams,
} from '../provider/third-party/crypto.js';
export {
  WalletDepositParams,
  WalletWithdrawalParams,
} from '../provider/third-party/wallet.js';

// Dealer API
export { DealerSettings } from '../dealer/settings.js';
export {
  ManualIbanDepositParams,
  ManualIbanWithdrawalParams,
  ManualIbanDeposit,
  ManualIbanWithdrawal,
} from '../dealer/manual-iban.js';
export {
  EibanAccount,
  EibanAccountList,
} from '../dealer/eibans.js';
export {
  TransactionListParams,
  TransactionRangeParams,
  Transaction,
  TransactionList,
  ReadNewTransactionsParams,
} from '../dealer/transactions.js';
export {
  SendMoneyParams,
  TransferStatusParams,
  Transfer,
  TransferStatus,
  SendMoneyResult,
  TransferStatusResult,
} from '../dealer/transfers.js';
export {
  DealerCardPaymentParams,
  DealerCardPayment,
} from '../dealer/credit-card.js';

// Callbacks: the bodies the service POSTs. Verify a callback first (verifyCallback); parse a body
// again with these when it comes back from your own queue or logs.
export {
  DepositCallback,
  WithdrawalCallback,
  CreditCardCallback,
  DealerCreditCardCallback,
  UnknownCallback,
} from '../webhooks/schemas.js';
