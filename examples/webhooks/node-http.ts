// A callback receiver on plain node:http. receiver.nodeHandler reads the body (at most 64 KiB),
// verifies it, runs your handlers once per tracking_code + status, and answers: 200 applied or
// already applied, 401 forged, 400 malformed, 409 not your order, 413 too large, 405 not POST,
// 500 not applied.
import { createServer } from 'node:http';
import { createCallbackReceiver } from 'payorch';
import { confirmOrder } from './orders.js';
import { CALLBACK_PATH, handleOf, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback, orderOf } = settings(options);
  // Checks the keys now: a missing one fails here, not as a 401 on every callback.
  // confirm: the user and amount, which the hash does not cover, are checked against your order first.
  const receiver = createCallbackReceiver({ apiKey, secretKey, confirm: confirmOrder(orderOf) });
  // One handler for everything here; narrow ones are receiver.on('deposit.completed', …) (docs/receiving-callbacks.md).
  receiver.on('*', onCallback);

  const server = createServer((request, response) => {
    if (new URL(request.url ?? '/', 'http://receiver').pathname !== CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    void receiver.nodeHandler(request, response); // never rejects
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return handleOf(server);
}

await runWhenMain(import.meta.url, start);
