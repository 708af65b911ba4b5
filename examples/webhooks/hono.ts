// A callback receiver on Hono. receiver.handle takes the Fetch API Request as it is, so the same
// route runs on Node (@hono/node-server), Bun, Deno and workers.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Server } from 'node:net';
import { createCallbackReceiver } from 'payorch';
import { confirmOrder } from './orders.js';
import { CALLBACK_PATH, handleOf, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback, orderOf } = settings(options);
  // confirm: the user and amount, which the hash does not cover, are checked against your order first.
  const receiver = createCallbackReceiver({ apiKey, secretKey, confirm: confirmOrder(orderOf) });
  receiver.on('*', onCallback);

  const app = new Hono();
  app.post(CALLBACK_PATH, (context) => receiver.handle(context.req.raw));

  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: app.fetch, port, hostname: host }, () => {
      resolve(listening);
    });
  });
  return handleOf(server);
}

await runWhenMain(import.meta.url, start);
