// Manual IBAN deposit: ask which bank account a customer should pay an amount into, and show it.
import { DealerClient } from 'payorch';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });

// The dealer API spells the customer id `userid`.
const { data } = await dealer.manualIban.startDeposit({ username: 'ada', userid: 'u-1001', fullname: 'Ada Yılmaz', amount: 1500 });

console.log(`Deposit ${data.tracking_code}: please transfer ${data.amount} TRY to`);
console.log(`  ${data.account_name}, ${data.bank_name}`);
console.log(`  IBAN ${data.formatted_iban ?? data.iban_no}`);
console.log('Quote the tracking code in the transfer description.');
