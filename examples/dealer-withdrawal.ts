// Manual withdrawal: request a payout to a customer's IBAN. It is `pending` until the service
// processes it; the result arrives by withdrawal callback.
import { APIError, DealerClient, RequestValidationError } from 'payorch';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });

try {
  const { data } = await dealer.manualIban.startWithdrawal({
    username: 'ada',
    userid: 'u-1001',
    amount: 750,
    recipient_name: 'Ada Yılmaz',
    recipient_iban: 'TR330006100519786457841326',
  });
  console.log(`Withdrawal ${data.tracking_code}: ${data.amount} TRY, ${data.status}`);
} catch (error) {
  // Nothing was sent: a field broke a rule.
  if (error instanceof RequestValidationError) console.error('Fix the request:', error.issues);
  // The service refused it; `body` holds its whole answer.
  else if (error instanceof APIError) console.error(`Refused (HTTP ${error.status}):`, error.message);
  throw error;
}
