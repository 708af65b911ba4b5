// What the dealer client's calls need and its construction does not: every endpoint row of the
// dealer API with its zod schemas, and what a method checks or computes with them. Imported only
// by DEALER_CALLS (tables.ts) on a client's first call, never by importing payorch (see
// src/provider/calls.ts), so the build keeps it, and zod, in a chunk of its own.

export { dealerCardPaymentEndpoint } from './credit-card.js';
export { eibanListEndpoint } from './eibans.js';
export { manualIbanDepositEndpoint, manualIbanWithdrawEndpoint } from './manual-iban.js';
export { settingsEndpoint } from './settings.js';
export { transactionListEndpoint, transactionPageEndpoint, ReadNewTransactionsParams } from './transactions.js';
export { dayOfDate, decodeCursor, encodeCursor } from './transaction-cursor.js';
export { sendMoneyEndpoint, transferStatusEndpoint, TransferStatusParams } from './transfers.js';
export { unknownAnswer } from '../internal/shared-shapes.js';
