// Third-party crypto (spec 4.11): a deposit through the tracking page, and a withdrawal to a wallet
// address through a gateway that supports the coin and network you want.
import { ProviderClient } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1001' };
const crypto = provider.thirdParty.crypto;

const deposit = await crypto.startDeposit({ ...customer, amount: 1000 });
console.log(`Crypto deposit ${deposit.data.tracking_code}: ${deposit.data.status}; redirect to ${deposit.data.payment_url}`);

const amount = 2500;
const coin = 'USDT (TRC20)';
const { data } = await crypto.gateways.list();
const gateway = data.gateways.find((g) => (g.supported_crypto_types ?? []).includes(coin) && g.min_amount <= amount && amount <= g.max_amount);
if (gateway === undefined) throw new Error(`no crypto gateway pays ${amount} in ${coin}`);
console.log(`Gateway ${gateway.name}: ${(gateway.supported_crypto_types ?? []).join(', ')}`);

const withdrawal = await crypto.startWithdrawal({
  ...customer,
  amount,
  gateway_id: gateway.id,
  crypto_type: coin,
  wallet_address: 'TQ5NuDqZ5yPqVuWJ9W5jH8oHr1Ue3GcKsT',
});
console.log(`Crypto withdrawal ${withdrawal.data.tracking_code}: ${withdrawal.data.amount} TRY in ${coin}, ${withdrawal.data.status}`);
