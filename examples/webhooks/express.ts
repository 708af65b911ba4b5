// A callback receiver on Express 5. receiver.nodeHandler is a plain function: mount it as it is.
// It reads the raw body itself whenever a body parser left it unread (Express 4's express.json()
// skips a callback sent as text/plain or a form, and the spec names no Content-Type), or takes
// what the parser made of it (express.json() here, as many apps install globally: the hash covers
// fields, not bytes).
import express from 'express';
import type { Server } from 'node:http';
import { createCallbackReceiver } from 'payorch';
import { confirmOrder } from './orders.js';
import { CALLBACK_PATH, handleOf, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback, orderOf } = settings(options);
  // confirm: the user and amount, which the hash does not cover, are checked against your order first.
  const receiver = createCallbackReceiver({ apiKey, secretKey, confirm: confirmOrder(orderOf) });
  receiver.on('*', onCallback);

  const app = express();
  // express.json() caps the body at 64 KiB here and answers 413 beyond, before payorch sees it.
  app.use(express.json({ limit: '64kb' }));
  app.post(CALLBACK_PATH, receiver.nodeHandler);

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(port, host, (error) => {
      if (error === undefined) resolve(listening);
      else reject(error);
    });
  });
  return handleOf(server);
}

await runWhenMain(import.meta.url, start);
