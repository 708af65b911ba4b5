import * as z from 'zod/mini';

// What the clients' calls need and their construction does not: every endpoint row with its zod
// schemas, and the schemas a method checks by itself. Loaded with `import()` on a client's first
// call (loadCalls in resource.ts), never by importing payorch: this module is what brings zod and
// the endpoint tables, most of what the main entry's import used to compile (bench/findings.md).
// Reached only through that `import()`, so the build keeps it, and zod, in a chunk of its own.

export { welcomeEndpoint, listSitesEndpoint, SiteListParams } from '../provider/account.js';
export { cardPaymentEndpoint, cardStatusEndpoint } from '../provider/credit-card.js';
export { eibanDepositEndpoint, eibanWithdrawalEndpoint } from '../provider/eiban.js';
export { manualDepositEndpoint, manualWithdrawalEndpoint } from '../provider/manual.js';
export { bankEndpoints } from '../provider/third-party/bank.js';
export { cryptoEndpoints } from '../provider/third-party/crypto.js';
export { walletEndpoints } from '../provider/third-party/wallet.js';
export { dealerCardPaymentEndpoint } from '../dealer/credit-card.js';
export { eibanListEndpoint } from '../dealer/eibans.js';
export { manualIbanDepositEndpoint, manualIbanWithdrawEndpoint } from '../dealer/manual-iban.js';
export { settingsEndpoint } from '../dealer/settings.js';
export { transactionListEndpoint, transactionPageEndpoint, ReadNewTransactionsParams } from '../dealer/transactions.js';
export { dayOfDate, decodeCursor, encodeCursor } from '../dealer/transaction-cursor.js';
export { sendMoneyEndpoint, transferStatusEndpoint, TransferStatusParams } from '../dealer/transfers.js';

/** The answer schema of `request()`: any JSON. */
export function unknownAnswer(): z.ZodMiniUnknown {
  return z.unknown();
}
