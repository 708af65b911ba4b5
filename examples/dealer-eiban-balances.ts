// E-IBAN balances: list the dealer's E-IBAN accounts with their total and available balances.
import { DealerClient } from 'payorch';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });

const { dealer_name, total_eibans, eibans } = await dealer.eibans.list();
console.log(`${dealer_name ?? 'Dealer'}: ${total_eibans} E-IBAN account(s)`);
// Balances are decimal strings ("15000.00"), shown as the service sent them.
console.table(
  eibans.map((account) => ({
    wallet: account.wallet_id,
    bank: account.bank_name,
    iban: account.iban_no,
    balance: account.balance,
    available: account.available_balance,
  })),
);
