// Send money: transfer from the dealer's best-funded E-IBAN to a bank account, then wait a short
// while for the transfer to leave `pending`.
import { APIError, DealerClient, TransferWaitTimeoutError } from 'payorch';
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

// Transfers have no callback: wait a short while for the end status. At the deadline the transfer
// is still pending, not failed: it may complete later (a scheduled sweep, applyTransferStatuses,
// picks its end up; see examples/webhooks/transfer-sweep.ts).
try {
  const { transfer } = await dealer.transfers.waitFor(transferId, { timeout: 10_000 });
  console.log(`Transfer ${transferId} ended: ${transfer.status}`);
} catch (error) {
  if (!(error instanceof TransferWaitTimeoutError)) throw error;
  console.log(`Still ${error.lastStatus ?? 'pending'} after 10 s: check again later.`);
}
