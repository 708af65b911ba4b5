import { Agent, request } from 'node:http';

export interface LoadTarget {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string | undefined;
  /** Fresh headers (a new timestamp and hash) for each request. */
  readonly headers: () => Record<string, string>;
}

/** Sends one request with node:http and resolves to its status and body. */
export function send(target: LoadTarget, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...target.headers() };
    if (target.body !== undefined) headers['content-length'] = Buffer.byteLength(target.body);
    const req = request(`${target.url}${target.path}`, { method: target.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(target.body);
  });
}

/**
 * Closed-loop load: `concurrency` keep-alive connections, each sending its next request as soon as
 * the previous answer is read, for `durationMs`. node:http is the client because it costs less CPU
 * per request than fetch, leaving more of the machine to the server being measured.
 */
export async function closedLoop(target: LoadTarget, { concurrency, durationMs }: { concurrency: number; durationMs: number }): Promise<{ requests: number; ms: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const end = performance.now() + durationMs;
  let requests = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const { status, body } = await send(target, agent);
        if (status !== 200) throw new Error(`HTTP ${status} from ${target.path}: ${body.slice(0, 200)}`);
        requests++;
      }
    }),
  );
  const ms = performance.now() - start;
  agent.destroy();
  return { requests, ms };
}

/** One POST of a fixed-count load: its own headers and body. */
export interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Sends every delivery once, in order, to `url` + `path` over `concurrency` keep-alive connections
 * of `agent` (each sends its next one as soon as the previous answer is read). A fixed count
 * rather than a duration, so that two servers compared get the same work. Non-200 answers are
 * counted, not thrown: the caller decides what a failure means.
 */
export async function fixedLoad(
  url: string,
  path: string,
  deliveries: readonly Delivery[],
  { concurrency, agent }: { concurrency: number; agent: Agent },
): Promise<{ ms: number; failures: number; firstFailure: string | undefined }> {
  let next = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < deliveries.length) {
        const { headers, body } = deliveries[next++]!;
        const { status, body: answer } = await send({ url, method: 'POST', path, body, headers: () => headers }, agent);
        if (status !== 200) {
          failures++;
          firstFailure ??= `HTTP ${status}: ${answer.slice(0, 200)}`;
        }
      }
    }),
  );
  return { ms: performance.now() - start, failures, firstFailure };
}
