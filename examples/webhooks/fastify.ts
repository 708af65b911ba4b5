// A callback receiver on Fastify 5. Fastify parses the JSON body itself; verifyCallback takes
// the parsed object as it is, since the hash covers fields, not bytes.
import Fastify from 'fastify';
import { CallbackVerificationError, verifyCallback } from 'payorch';
import type { CallbackBody } from 'payorch';
import { processOnce } from './process-once.js';
import { CALLBACK_PATH, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback } = settings(options);
  const processCallback = processOnce(onCallback);
  // A callback is under 2 KB: refuse bodies over 64 KiB before parsing them.
  const app = Fastify({ bodyLimit: 64 * 1024 });

  app.post(CALLBACK_PATH, async (request, reply) => {
    try {
      const callback = verifyCallback({ headers: request.headers, body: request.body as CallbackBody }, { apiKey, secretKey });
      await processCallback(callback);
      return { success: true };
    } catch (error) {
      if (!(error instanceof CallbackVerificationError)) throw error; // Fastify answers 500
      return reply.code(error.status).send({ success: false, error: error.reason });
    }
  });

  await app.listen({ port, host });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  return { url: `http://${host}:${actualPort}${CALLBACK_PATH}`, close: () => app.close() };
}

await runWhenMain(import.meta.url, start);
