// A callback receiver on Express 5. express.raw() hands over the raw bytes (express.json() would
// work too: the hash covers fields, not bytes). Mount it before any global JSON parser.
import express from 'express';
import type { Server } from 'node:http';
import { CallbackVerificationError, verifyCallback } from 'payorch';
import { processOnce } from './process-once.js';
import { CALLBACK_PATH, handleOf, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback } = settings(options);
  const processCallback = processOnce(onCallback);
  const app = express();

  // Any content type, at most 64 KiB (a callback is under 2 KB): Express answers 413 beyond.
  app.post(CALLBACK_PATH, express.raw({ type: () => true, limit: '64kb' }), async (request, response) => {
    try {
      // A Buffer, or undefined when there was no body: verifyCallback refuses that as malformed.
      const body = request.body as Buffer;
      const callback = verifyCallback({ headers: request.headers, body }, { apiKey, secretKey });
      await processCallback(callback);
      response.json({ success: true });
    } catch (error) {
      if (!(error instanceof CallbackVerificationError)) throw error; // Express 5 answers 500
      response.status(error.status).json({ success: false, error: error.reason });
    }
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(port, host, (error) => {
      if (error === undefined) resolve(listening);
      else reject(error);
    });
  });
  return handleOf(server);
}

await runWhenMain(import.meta.url, start);
