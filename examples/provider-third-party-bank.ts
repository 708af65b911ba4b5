// Third-party bank (spec 4.10): deposits go through a tracking page where the customer picks how
// to pay; withdrawals go through a gateway you choose from gateways.list(), within its bounds and
// with the fields it requires. Deposit and withdrawal callbacks bring the end status.
import { ProviderClient } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1001' };
const bank = provider.thirdParty.bank;

const deposit = await bank.startDeposit({ ...customer, amount: 300 });
console.log(`Bank deposit ${deposit.data.tracking_code}: ${deposit.data.status}; redirect to ${deposit.data.payment_url}`);

// The service enforces each gateway's bounds; checking them first saves a refused request.
const amount = 750;
const { data } = await bank.gateways.list();
for (const g of data.gateways) console.log(`  gateway ${g.id} ${g.name}: ${g.min_amount}..${g.max_amount}, needs ${g.required_fields.join(', ')}`);
const gateway = data.gateways.find((g) => g.min_amount <= amount && amount <= g.max_amount);
if (gateway === undefined) throw new Error(`no bank gateway accepts ${amount}`);

const withdrawal = await bank.startWithdrawal({
  ...customer,
  amount,
  gateway_id: gateway.id,
  iban: 'TR330006100519786457841326',
  ...(gateway.required_fields.includes('account_holder') ? { account_holder: customer.fullname } : {}),
});
console.log(`Bank withdrawal ${withdrawal.data.tracking_code} via ${gateway.name}: ${withdrawal.data.status}`);
