// Manual bank transfer (spec 4.5, 4.6): a deposit the customer completes on the payment page, and
// a withdrawal to the customer's IBAN that the assigned dealer pays out. Both end by callback:
// the deposit callback (completed, canceled, expired) and the withdrawal callback.
import { ProviderClient, RequestValidationError } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });
const customer = { fullname: 'Ada Yılmaz', username: 'ada', user_id: 'u-1001' };

const deposit = await provider.manual.startDeposit({ ...customer, amount: 250 });
console.log(`Deposit ${deposit.data.tracking_code}: ${deposit.data.status}, ${deposit.data.amount} TRY`);
console.log(`  redirect the customer to ${deposit.data.payment_url} (expires ${deposit.data.expires_at ?? '?'})`);

const withdrawal = await provider.manual.startWithdrawal({ ...customer, iban: 'TR330006100519786457841326', amount: 100 });
console.log(`Withdrawal ${withdrawal.data.tracking_code}: ${withdrawal.data.status} to ${withdrawal.data.iban ?? '?'}`);

// Bad input never leaves your server: the SDK names the field and the rule.
try {
  await provider.manual.startWithdrawal({ ...customer, iban: 'TR33', amount: 100 });
  throw new Error('a 4-character IBAN was accepted');
} catch (error) {
  if (!(error instanceof RequestValidationError)) throw error;
  console.log(`Refused before sending: ${error.issues.map((issue) => `${issue.field} ${issue.message}`).join('; ')}`);
}
