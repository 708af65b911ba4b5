// Card payment (spec 4.8, 4.9): create the payment, send the customer to the card page, then read
// its status. The site credential key travels in the body, filled in from the client. The result
// also arrives by credit card callback (success, failed, cancelled).
import { APIError, ProviderClient } from 'payorch';
import { env } from './env.js';

const { apiKey, secretKey, credentialKey } = env.provider();
const provider = new ProviderClient({ baseUrl: env.baseUrl(), apiKey, secretKey, credentialKey });

try {
  const payment = await provider.creditCard.createPayment({
    username: 'ada',
    user_id: 'u-1001',
    firstname: 'Ada',
    lastname: 'Yılmaz',
    email: 'ada@example.com',
    amount: 150,
    description: 'Order 42',
  });
  console.log(`Card payment ${payment.data.tracking_code} (order ${payment.data.order_id ?? '?'}): ${payment.data.amount} ${payment.data.currency ?? 'TRY'}`);
  console.log(`  redirect the customer to ${payment.data.payment_url}`);

  // Safe to repeat: the status call is read-only and retried on transient failures.
  const { data } = await provider.creditCard.getStatus({ tracking_code: payment.data.tracking_code });
  console.log(`Status now: ${data.status} (updated ${data.updated_at ?? '?'})`);
} catch (error) {
  // Card refusals come as { success: false, message } (spec 7.3), for example a blocked customer.
  if (error instanceof APIError) console.error(`Card payment refused (HTTP ${error.status}): ${error.message}`);
  throw error;
}
