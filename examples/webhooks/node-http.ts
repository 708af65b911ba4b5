// A callback receiver on plain node:http: read the raw body, verify, process once, answer.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallbackVerificationError, verifyCallback } from 'payorch';
import { processOnce } from './process-once.js';
import { CALLBACK_PATH, handleOf, runWhenMain, settings } from './receiver.js';
import type { Receiver, ReceiverOptions } from './receiver.js';

// A callback is under 2 KB; verifyCallback refuses more than 64 KiB, so stop reading there.
const MAX_BODY_BYTES = 64 * 1024;

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size > MAX_BODY_BYTES) break;
  }
  return Buffer.concat(chunks);
}

function reply(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function start(options: ReceiverOptions): Promise<Receiver> {
  const { apiKey, secretKey, port, host, onCallback } = settings(options);
  const processCallback = processOnce(onCallback);

  const server = createServer((request, response) => {
    if (request.method !== 'POST' || new URL(request.url ?? '/', 'http://receiver').pathname !== CALLBACK_PATH) {
      reply(response, 404, { success: false });
      return;
    }
    void (async () => {
      try {
        const callback = verifyCallback({ headers: request.headers, body: await readBody(request) }, { apiKey, secretKey });
        await processCallback(callback);
        reply(response, 200, { success: true });
      } catch (error) {
        if (error instanceof CallbackVerificationError) {
          reply(response, error.status, { success: false, error: error.reason });
          return;
        }
        // Not processed: any status but 200 makes the service record a failed delivery.
        console.error(error);
        reply(response, 500, { success: false });
      }
    })();
  });

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return handleOf(server);
}

await runWhenMain(import.meta.url, start);
