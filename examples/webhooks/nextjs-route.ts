// A Next.js App Router route handler: save as app/api/webhooks/payorch/route.ts. Next.js calls
// POST with the Fetch API Request and answers 405 to other methods itself. The receiver is made
// once per server instance, when the route is first loaded: a missing key fails there, loudly.
import { createCallbackReceiver } from 'payorch';
import type { DepositCallback, WithdrawalCallback } from 'payorch';

const receiver = createCallbackReceiver({
  apiKey: process.env['PAYORCH_PROVIDER_API_KEY'] ?? '',
  secretKey: process.env['PAYORCH_PROVIDER_SECRET_KEY'] ?? '',
});

// Your application's side. Each runs once per tracking_code + status; throwing answers 500 and
// the service delivers the callback again.
async function creditDeposit(payload: DepositCallback): Promise<void> {
  console.log(`credit ${payload.user_id ?? '?'} with ${payload.amount} for ${payload.tracking_code}`);
  await Promise.resolve();
}
async function refundWithdrawal(payload: WithdrawalCallback): Promise<void> {
  console.log(`refund ${payload.user_id ?? '?'} ${payload.amount} for ${payload.tracking_code} (${payload.status})`);
  await Promise.resolve();
}

receiver.on('deposit.completed', (callback) => creditDeposit(callback.payload));
// Spec 6.3: on rejected or failed, give the customer's balance back.
receiver.on('withdrawal.rejected', (callback) => refundWithdrawal(callback.payload));
receiver.on('withdrawal.failed', (callback) => refundWithdrawal(callback.payload));

export function POST(request: Request): Promise<Response> {
  return receiver.handle(request);
}
