// Third-party wallet (spec 4.12): a deposit through the tracking page, and a withdrawal to an
// e-wallet number. Some wallet gateways also require the account holder's name.
import { ProviderClient } from 'payorch';
import type { Gateway } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1001' };
const wallet = provider.thirdParty.wallet;

const deposit = await wallet.startDeposit({ ...customer, amount: 75 });
console.log(`Wallet deposit ${deposit.data.tracking_code}: ${deposit.data.status}; redirect to ${deposit.data.payment_url}`);

const amount = 200;
const fits = (g: Gateway) => g.min_amount <= amount && amount <= g.max_amount;
const { data } = await wallet.gateways.list();
// Prefer a gateway that needs only the wallet number; fall back to one that also wants the holder.
const gateway = data.gateways.find((g) => fits(g) && g.required_fields.length === 1) ?? data.gateways.find(fits);
if (gateway === undefined) throw new Error(`no wallet gateway accepts ${amount}`);

const withdrawal = await wallet.startWithdrawal({
  ...customer,
  amount,
  gateway_id: gateway.id,
  wallet_number: '1234567890',
  ...(gateway.required_fields.includes('account_holder') ? { account_holder: customer.fullname } : {}),
});
console.log(`Wallet withdrawal ${withdrawal.data.tracking_code} via ${gateway.name}: ${withdrawal.data.status}`);
