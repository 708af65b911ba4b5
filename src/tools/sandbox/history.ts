import { formatIsoLocal } from './clock.js';
import { turkishIban } from './iban.js';
import { SeededRandom } from './random.js';

/** An E-IBAN transaction (spec 2.7) with its time and amount kept exact for filtering and sums. */
export interface Transaction {
  readonly at: number;
  readonly transactionId: string;
  readonly amountCents: number;
  readonly type: 'incoming' | 'outgoing';
  readonly description: string;
  readonly senderName: string;
  readonly senderIban: string;
}

const DAY_MS = 86_400_000;
const FIRST_NAMES = ['Ayşe', 'Mehmet', 'Zeynep', 'Mustafa', 'Elif', 'Ahmet', 'Fatma', 'Emre', 'Selin', 'Burak', 'Deniz', 'Ali'] as const;
const LAST_NAMES = ['Yılmaz', 'Kaya', 'Demir', 'Şahin', 'Çelik', 'Yıldız', 'Aydın', 'Öztürk', 'Arslan', 'Doğan'] as const;
const DESCRIPTIONS = ['FAST incoming transfer', 'EFT incoming transfer', 'Havale', 'Deposit'] as const;

/**
 * A wallet's history before `endMs`: `perDay` incoming transfers a day on average over `days`
 * days, oldest first. Seeded by wallet, so each wallet's history is the same on every run.
 */
export function generateHistory(seed: string, walletId: string, endMs: number, days: number, perDay: number): Transaction[] {
  const random = new SeededRandom(`${seed}:history:${walletId}`);
  const transactions: Transaction[] = [];
  // A per-wallet prefix and a counter: ids are unique within the wallet and differ between wallets.
  const prefix = `TXN${random.digits(4)}`;
  const firstDay = Math.floor(endMs / DAY_MS) - days;
  for (let day = firstDay; day <= firstDay + days; day++) {
    const count = random.int(Math.floor(perDay * 0.6), Math.ceil(perDay * 1.4));
    const times: number[] = [];
    for (let index = 0; index < count; index++) times.push(day * DAY_MS + random.int(0, DAY_MS - 1000));
    for (const at of times.sort((a, b) => a - b)) {
      if (at >= endMs) break;
      transactions.push({
        at,
        transactionId: `${prefix}${String(transactions.length + 1).padStart(8, '0')}`,
        amountCents: random.int(50, 25_000) * 100 + random.pick([0, 0, 0, 50, 25, 99]),
        type: 'incoming',
        description: random.pick(DESCRIPTIONS),
        senderName: `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`,
        senderIban: turkishIban(random),
      });
    }
  }
  return transactions;
}

/** The date of a transaction as the dealer API shows it (ISO 8601 without offset). */
export const transactionDate = (transaction: Transaction): string => formatIsoLocal(transaction.at);
