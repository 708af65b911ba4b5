// A callback receiver on Fastify 5. Fastify parses the JSON body itself; receiver.receive takes
// the parsed body (the hash covers fields, not bytes) and returns the answer for Fastify to send.
import Fastify from 'fastify';
import { createCallbackReceiver } from 'payorch';
import type { CallbackBody } from 'payorch';
import { confirmOrder } from './orders.js';
import { CALLBACK_PATH, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback, orderOf } = settings(options);
  // confirm: the user and amount, which the hash does not cover, are checked against your order first.
  const receiver = createCallbackReceiver({ apiKey, secretKey, confirm: confirmOrder(orderOf) });
  receiver.on('*', onCallback);
  // A callback is under 2 KB: Fastify refuses bodies over 64 KiB with 413 before parsing them.
  const app = Fastify({ bodyLimit: 64 * 1024 });
  // The spec names no Content-Type for callbacks: a JSON text may come as text/plain or as a form
  // (PHP curl's default), which Fastify answers with 415 without a parser. Both go on as their text.
  app.addContentTypeParser(['text/plain', 'application/x-www-form-urlencoded'], { parseAs: 'string' }, (_request, body, done) => { done(null, body); });

  app.post(CALLBACK_PATH, async (request, reply) => {
    const answer = await receiver.receive({ headers: request.headers, body: request.body as CallbackBody }); // never rejects
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });

  await app.listen({ port, host });
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  return { url: `http://${host}:${actualPort}${CALLBACK_PATH}`, close: () => app.close() };
}

await runWhenMain(import.meta.url, start);
