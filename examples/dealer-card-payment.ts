// Card payment: create a payment and send the customer to its page. The result arrives by credit
// card callback, keyed by the tracking code.
import { DealerClient } from 'payorch';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });

const { payment_methods } = await dealer.settings.get();
if (payment_methods.credit_card !== 'active') throw new Error('Card payments are not active for this dealer');

const { data } = await dealer.creditCard.createPayment({
  username: 'ada',
  firstname: 'Ada',
  lastname: 'Yılmaz',
  email: 'ada@example.com',
  phone: '+905551112233',
  amount: 450, // TRY; the service's minimum is 200
  description: 'Order 1042',
});

console.log(`Payment ${data.tracking_code} (order ${data.order_id}): ${data.amount} ${data.currency}`);
console.log(`Send the customer to ${data.payment_url}`);
