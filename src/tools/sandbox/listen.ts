import { declareOptions } from '../../core/option-checks.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Caller } from './guard.js';
import { hostnameOf } from './guard.js';

type Handle = (request: Request, caller: Caller) => Promise<Response>;

/** Where `listen()` serves. */
export interface ListenOptions {
  /**
   * TCP port; 0 picks a free one (read it from `url`).
   * @default 0
   */
  readonly port?: number | undefined;
  /**
   * Interface to listen on. The controls under /__sandbox answer loopback callers only, addressed
   * by a loopback name, this host or `publicUrl`'s host.
   * @default '127.0.0.1'
   */
  readonly host?: string | undefined;
}

/** Where the sandbox listens, and whom an in-process request comes from, when nothing says. */
export const LOOPBACK = '127.0.0.1';
const ANY_FREE_PORT = 0;

export const LISTEN_OPTIONS = declareOptions<ListenOptions>()([
  { name: 'port', rule: { type: 'number', min: 0, max: 65_535, integer: true }, default: ANY_FREE_PORT },
  { name: 'host', rule: { type: 'text', maxLength: 253 }, default: LOOPBACK },
]);

/** A sandbox served over HTTP. */
export interface RunningSandbox {
  /** Base URL for the clients, for example `http://127.0.0.1:4010`. */
  readonly url: string;
  /** Stops accepting connections, ends open ones and resolves when the server is closed. */
  close(): Promise<void>;
}

/** Bodies larger than this are refused with 413: the spec's bodies are a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

/** Any-interface addresses: the URL names loopback instead, which reaches the same server. */
const WILDCARD: Readonly<Record<string, string>> = { '0.0.0.0': '127.0.0.1', '::': '::1' };

/**
 * Serves a Fetch handler over node:http. The caller's IP is the socket's remote address, so the
 * provider IP whitelist sees what a real service would; the request's URL is built from the
 * listening address, never from the Host header, which goes to the handler apart for the
 * controls' check. `tick` runs every second while serving.
 */
export async function serveHttp(handle: Handle, tick: () => void, options: ListenOptions = {}, publicUrl?: string): Promise<RunningSandbox> {
  // Imported here, not at the top: a bundler hoists a top-level import into the sandbox entry,
  // and the sandbox must load where node:http does not exist (msw in a browser).
  const { createServer } = await import('node:http');
  const host = options.host ?? LOOPBACK;
  const allowedHosts = [host, ...(publicUrl === undefined ? [] : [new URL(publicUrl).host])]
    .filter((name) => WILDCARD[name] === undefined)
    .flatMap((name) => hostnameOf(name.includes(':') && !name.startsWith('[') ? `[${name}]` : name) ?? []);
  let origin = '';
  const server = createServer((incoming, outgoing) => {
    bridge(incoming, outgoing, handle, origin, allowedHosts).catch((error: unknown) => {
      if (!outgoing.headersSent) outgoing.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      outgoing.end(JSON.stringify({ success: false, error: 'Internal Server Error', message: error instanceof Error ? error.message : String(error) }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? ANY_FREE_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const timer = setInterval(tick, 1000);
  timer.unref();
  const { port } = server.address() as AddressInfo;
  const shown = WILDCARD[host] ?? host;
  origin = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(timer);
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
        server.closeAllConnections();
      }),
  };
}

async function bridge(incoming: IncomingMessage, outgoing: ServerResponse, handle: Handle, origin: string, allowedHosts: readonly string[]): Promise<void> {
  const target = incoming.url ?? '/';
  // An absolute-form target (`GET http://elsewhere/ HTTP/1.1`) would replace the origin: refuse it.
  if (!target.startsWith('/')) {
    outgoing.writeHead(400, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
    outgoing.end(JSON.stringify({ success: false, error: 'Bad Request', message: 'The request target must be a path' }));
    return;
  }
  const headers = new Headers();
  for (let index = 0; index + 1 < incoming.rawHeaders.length; index += 2) {
    headers.append(incoming.rawHeaders[index] ?? '', incoming.rawHeaders[index + 1] ?? '');
  }
  const method = incoming.method ?? 'GET';
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    body = await readBody(incoming);
    if (body === undefined) {
      outgoing.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
      outgoing.end(JSON.stringify({ success: false, error: 'Payload Too Large', message: `Bodies are limited to ${MAX_BODY_BYTES} bytes` }));
      return;
    }
  }
  const request = new Request(new URL(target, origin), { method, headers, ...(body === undefined ? {} : { body }) });
  const response = await handle(request, { clientAddress: incoming.socket.remoteAddress ?? '', host: incoming.headers.host ?? '', allowedHosts });
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  outgoing.end(Buffer.from(await response.arrayBuffer()));
}

/** The whole body, or undefined when it is larger than the limit. */
async function readBody(incoming: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      incoming.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
