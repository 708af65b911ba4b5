// Transactions over a week: read every transaction of the last 7 days of an E-IBAN. The service
// answers at most 3 days a request, 100 records a page; iterate() does the windows and the pages.
import { DealerClient } from 'payorch';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });

/** A local date as YYYY-MM-DD, `daysAgo` days before today. */
function isoDay(daysAgo: number): string {
  const date = new Date();
  date.setDate(date.getDate() - daysAgo);
  return [date.getFullYear(), date.getMonth() + 1, date.getDate()].map((part) => String(part).padStart(2, '0')).join('-');
}

const { eibans } = await dealer.eibans.list();
const account = eibans[0];
if (account === undefined) throw new Error('The dealer has no E-IBAN account');

const range = { wallet_id: account.wallet_id, start_date: isoDay(6), end_date: isoDay(0) };
console.log(`Transactions of ${account.iban_no} from ${range.start_date} to ${range.end_date}:`);

// Amounts are decimal strings: add them up in kuruş (hundredths) to keep the total exact.
let count = 0;
let totalKurus = 0;
// One request at a time, as the loop consumes them; the signal stops it after a minute.
for await (const tx of dealer.transactions.iterate(range, { signal: AbortSignal.timeout(60_000) })) {
  count++;
  totalKurus += Math.round(Number(tx.amount) * 100);
  console.log(`  ${tx.date}  ${tx.type.padEnd(8)} ${tx.amount.padStart(12)}  ${tx.senderName ?? ''}`);
}
console.log(`${count} transaction(s), ${(totalKurus / 100).toFixed(2)} TRY in all`);
