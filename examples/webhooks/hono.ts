// A callback receiver on Hono. verifyCallbackRequest takes the Fetch API Request as it is, so the
// same handler runs on Node (@hono/node-server), Bun, Deno and workers.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Server } from 'node:net';
import { CallbackVerificationError, verifyCallbackRequest } from 'payorch';
import { processOnce } from './process-once.js';
import { CALLBACK_PATH, handleOf, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback } = settings(options);
  const processCallback = processOnce(onCallback);
  const app = new Hono();

  app.post(CALLBACK_PATH, async (context) => {
    try {
      const callback = await verifyCallbackRequest(context.req.raw, { apiKey, secretKey });
      await processCallback(callback);
      return context.json({ success: true });
    } catch (error) {
      if (!(error instanceof CallbackVerificationError)) throw error; // Hono answers 500
      return context.json({ success: false, error: error.reason }, error.status);
    }
  });

  const server = await new Promise<Server>((resolve) => {
    const listening = serve({ fetch: app.fetch, port, hostname: host }, () => {
      resolve(listening);
    });
  });
  return handleOf(server);
}

await runWhenMain(import.meta.url, start);
