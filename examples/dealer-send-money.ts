// Send money: transfer from the dealer's best-funded E-IBAN to a bank account, then poll the
// transfer's status for a short while until it leaves `pending`.
import { APIError, DealerClient } from 'payorch';
import type { TransferStatus } from 'payorch';
import { setTimeout as sleep } from 'node:timers/promises';
import { env } from './env.js';

const dealer = new DealerClient({ baseUrl: env.baseUrl(), ...env.dealer() });
const amount = 25; // TRY; the service's minimum is 10.00

const { eibans } = await dealer.eibans.list();
const source = eibans.toSorted((a, b) => Number(b.available_balance) - Number(a.available_balance))[0];
if (source === undefined) throw new Error('The dealer has no E-IBAN account');

let transferId: string;
try {
  const { transfer } = await dealer.transfers.send({
    wallet_id: source.wallet_id,
    recipient_iban: 'TR330006100519786457841326',
    recipient_name: 'Ada Yılmaz',
    amount,
    description: 'payorch example',
  });
  transferId = transfer.transfer_id;
  console.log(`Transfer ${transferId} of ${transfer.amount} TRY from ${source.wallet_id}: ${transfer.status}`);
} catch (error) {
  // Send-money failures carry a code (spec 7.4): INSUFFICIENT_BALANCE, INVALID_IBAN,
  // MIN_AMOUNT_ERROR or WALLET_NOT_ASSIGNED.
  if (error instanceof APIError && error.code === 'INSUFFICIENT_BALANCE') {
    console.error(`${source.wallet_id} has only ${source.available_balance} TRY available`);
  } else if (error instanceof APIError) {
    console.error(`Refused (${error.code ?? `HTTP ${error.status}`}): ${error.message}`);
  }
  throw error;
}

// A bounded poll: at most 10 reads, 1 second apart. Real systems also get the end status by
// reconciling transactions; a transfer that is still pending here is not a failure.
let status: TransferStatus = 'pending';
for (let attempt = 1; attempt <= 10 && status === 'pending'; attempt++) {
  await sleep(1_000);
  const { transfer } = await dealer.transfers.getStatus({ transfer_id: transferId });
  status = transfer.status;
  console.log(`  check ${attempt}: ${status}`);
}
console.log(status === 'pending' ? 'Still pending: check again later.' : `Transfer ${transferId} ended: ${status}`);
