import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DealerClient, ProviderClient } from '../../src/index.js';
import { SANDBOX_BASE_URL } from '../../src/tools/sandbox/index.js';
import type { Sandbox } from '../../src/tools/sandbox/index.js';
import { sha256 } from './wire.js';

export { SANDBOX_BASE_URL };

/** A ProviderClient on the sandbox's `fetch`, acting for the first site, with no retries. */
export function providerOf(sandbox: Sandbox): ProviderClient {
  const { apiKey, secretKey, sites } = sandbox.accounts.provider;
  return new ProviderClient({ baseUrl: SANDBOX_BASE_URL, apiKey, secretKey, credentialKey: sites[0].credentialKey, fetch: sandbox.fetch, maxRetries: 0 });
}

/** A DealerClient on the sandbox's `fetch`, with no retries. */
export function dealerOf(sandbox: Sandbox): DealerClient {
  return new DealerClient({ baseUrl: SANDBOX_BASE_URL, ...sandbox.accounts.dealer, fetch: sandbox.fetch, maxRetries: 0 });
}

export { CUSTOMER as customer, IBAN } from './wire.js';

export interface HandSigned {
  readonly method?: 'GET' | 'POST';
  readonly apiKey: string;
  readonly secretKey: string;
  /** The value hashed between the secret and the timestamp: X-Key or the credential key. */
  readonly between?: string;
  /** Unix seconds; now by default. */
  readonly timestamp?: number;
  /** Extra headers (X-Key, X-Credential-Key), or overrides of the signed ones. */
  readonly headers?: Record<string, string>;
  /** Signed headers to leave out. */
  readonly omit?: readonly ('X-Api-Key' | 'X-Hash' | 'X-Timestamp')[];
  readonly body?: string;
}

/**
 * A request signed by hand exactly as spec 5.1 says, hashed with node:crypto in the test:
 * nothing of src/internal/signer.ts is trusted to check itself.
 */
export function handSigned(url: string, options: HandSigned): Request {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Api-Key': options.apiKey,
    'X-Hash': sha256(options.apiKey, options.secretKey, options.between ?? '', timestamp),
    'X-Timestamp': timestamp,
    ...options.headers,
  };
  for (const name of options.omit ?? []) Reflect.deleteProperty(headers, name);
  const method = options.method ?? 'POST';
  return new Request(url, { method, headers, ...(options.body === undefined ? {} : { body: options.body }) });
}

/** The JSON body and status of an answer. */
export async function read(response: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export interface ReceivedCallback {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export interface TestReceiver {
  readonly url: string;
  readonly received: ReceivedCallback[];
  close(): Promise<void>;
}

/**
 * A callback receiver on loopback that answers the given statuses in turn (the last one
 * repeats) and records every request. `onReceived` runs as each request has been read, before
 * the answer (a test moves a fake clock there, so that the next attempt is signed later).
 */
export async function startReceiver(statuses: readonly number[] = [200], onReceived?: () => void): Promise<TestReceiver> {
  const received: ReceivedCallback[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      onReceived?.();
      const status = statuses[Math.min(received.length, statuses.length) - 1] ?? 200;
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ success: status === 200 }));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        receiver.close(() => {
          resolve();
        });
        receiver.closeAllConnections();
      }),
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/**
 * One HTTP request over a real socket with exactly the headers given, a forged Host included
 * (fetch would not let a test set Host): what a browser fooled by DNS rebinding, or a page's
 * cross-site form, makes the sandbox receive.
 */
export async function rawRequest(baseUrl: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  const { request } = await import('node:http');
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: base.hostname, port: base.port, path, method: options.method ?? 'GET', headers: options.headers ?? {} }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}
