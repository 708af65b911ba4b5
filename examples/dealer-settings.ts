// Dealer settings: the dealer's name and which payment methods are switched on. Also a quick check
// of the keys and the clock.
import { DealerClient } from 'payorch';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });

const { dealer_name, payment_methods } = await dealer.settings.get();
console.log(`Dealer: ${dealer_name}`);
console.log(`  credit card: ${payment_methods.credit_card}`);
console.log(`  E-IBAN:      ${payment_methods.eiban}`);
console.log(`  manual IBAN: ${payment_methods.manual_iban}`);
