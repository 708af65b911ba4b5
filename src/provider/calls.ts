// What the provider client's calls need and its construction does not: every endpoint row of the
// provider API with its zod schemas, and the schemas a method checks by itself. Imported only by
// PROVIDER_CALLS (tables.ts) on a client's first call, never by importing payorch: this module is
// what brings zod and the endpoint tables, most of what the main entry's import used to compile
// (bench/findings.md). Reached only through that `import()`, so the build keeps it, and zod, in a
// chunk of its own.

export { welcomeEndpoint, listSitesEndpoint, SiteListParams } from './account.js';
export { cardPaymentEndpoint, cardStatusEndpoint } from './credit-card.js';
export { eibanDepositEndpoint, eibanWithdrawalEndpoint } from './eiban.js';
export { manualDepositEndpoint, manualWithdrawalEndpoint } from './manual.js';
export { bankEndpoints } from './third-party/bank.js';
export { cryptoEndpoints } from './third-party/crypto.js';
export { walletEndpoints } from './third-party/wallet.js';
export { unknownAnswer } from '../internal/shared-shapes.js';
