// E-IBAN (spec 4.7): the same flow as manual transfers, paid through the service's E-IBAN accounts.
// The deposit ends by deposit callback, the withdrawal (pending at first) by withdrawal callback.
import { ProviderClient } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1001' };

const deposit = await provider.eiban.startDeposit({ ...customer, amount: 500 });
console.log(`E-IBAN deposit ${deposit.data.tracking_code}: ${deposit.data.status}`);
console.log(`  redirect the customer to ${deposit.data.payment_url}`);

const withdrawal = await provider.eiban.startWithdrawal({ ...customer, iban: 'TR330006100519786457841326', amount: 120.5 });
console.log(`E-IBAN withdrawal ${withdrawal.data.tracking_code}: ${withdrawal.data.status}, ${withdrawal.data.amount} TRY`);
if (withdrawal.data.status !== 'pending') throw new Error(`expected a pending withdrawal, got ${withdrawal.data.status}`);
