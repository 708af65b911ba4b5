/**
 * A callback receiver on loopback, in its own process, for bench/figures/receiver.ts. Arguments:
 * `<variant> <store> [<database url> <pool size> <table>]`.
 *
 * - variant `payorch`: `createCallbackReceiver` from the built package with one handler, served by
 *   node:http through its `nodeHandler`; store `memory` is its default inbox, `postgres` is
 *   `createPostgresInbox` from `payorch/postgres` on a `pg` pool.
 * - variant `hand`: what a careful receiver writes by hand with node:http and node:crypto: read the
 *   body, JSON.parse, SHA-256 of the keys and the signed fields (spec 5.3), constant-time compare,
 *   then apply once, one status of a tracking code at a time: a Set of tracking_code + status
 *   with a synchronous handler (`memory`), or BEGIN; a per-code transaction lock and INSERT … ON CONFLICT
 *   DO NOTHING; COMMIT on the same pool and the same table shape as payorch's (`postgres`).
 *
 * Besides the CPU question of `announce`, it answers `{ type: 'applied' }` with how many distinct
 * callbacks its handler applied, which the figure checks against how many it sent.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { PROVIDER } from '../fixtures/accounts.js';
import { bareVerify } from '../fixtures/callbacks.js';
import { announce } from '../lib/processes.js';

const [variant, store, databaseUrl, poolSize, table] = process.argv.slice(2);
if ((variant !== 'payorch' && variant !== 'hand') || (store !== 'memory' && store !== 'postgres')) {
  throw new Error(`receiver-server: expected <payorch|hand> <memory|postgres>, got ${String(variant)} ${String(store)}`);
}
if (store === 'postgres' && (databaseUrl === undefined || poolSize === undefined || table === undefined || !/^[a-z_]+$/.test(table))) {
  throw new Error('receiver-server: the postgres store needs <database url> <pool size> <table>');
}

let applied = 0;
const pool = store === 'postgres' ? new pg.Pool({ connectionString: databaseUrl, max: Number(poolSize) }) : undefined;

// The reply payorch sends and the spec shows (6.1): {"success":true}.
const OK_BODY = JSON.stringify({ success: true });
function reply(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

async function payorchListener(): Promise<RequestListener> {
  const { createCallbackReceiver } = await import('payorch');
  const options = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
  const count = (): void => {
    applied++;
  };
  if (pool === undefined) {
    const receiver = createCallbackReceiver(options);
    receiver.on('deposit', count);
    return (request, response) => void receiver.nodeHandler(request, response);
  }
  const { createPostgresInboxTable, createPostgresInbox } = await import('payorch/postgres');
  await createPostgresInboxTable({ pool, table: table! });
  const receiver = createCallbackReceiver({ ...options, inbox: createPostgresInbox({ pool, table: table! }) });
  receiver.on('deposit', count);
  return (request, response) => void receiver.nodeHandler(request, response);
}

/** The signed fields of a body whose hash matches, or undefined (answered 401). */
function verified(request: IncomingMessage, raw: string): { trackingCode: string; status: string } | undefined {
  const apiKey = request.headers['x-api-key'];
  const timestamp = request.headers['x-timestamp'];
  const hash = request.headers['x-hash'];
  const body = JSON.parse(raw) as { tracking_code?: unknown; status?: unknown };
  const { tracking_code: trackingCode, status } = body;
  if (apiKey !== PROVIDER.apiKey || typeof timestamp !== 'string' || typeof hash !== 'string' || typeof trackingCode !== 'string' || typeof status !== 'string') return undefined;
  // Spec 5.3, the same hand-written check the verification figure measures.
  return bareVerify({ 'x-timestamp': timestamp, 'x-hash': hash }, body) ? { trackingCode, status } : undefined;
}

async function handListener(): Promise<RequestListener> {
  const seen = new Set<string>();
  // Synchronous with the Set: no promise on the baseline's path. Its handler (a count) is
  // synchronous too, so the statuses of one tracking code are already applied one at a time.
  let apply = (key: { trackingCode: string; status: string }): Promise<void> | undefined => {
    const id = `${key.trackingCode}\n${key.status}`;
    if (!seen.has(id)) {
      seen.add(id);
      applied++;
    }
    return undefined;
  };
  if (pool !== undefined) {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${table!} (account text NOT NULL, tracking_code text NOT NULL, status text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account, tracking_code, status))`,
    );
    // One status of a tracking code at a time, as payorch's inbox gives: a transaction lock on
    // the code, taken in the same statement as the insert (no extra round trip).
    const insert = `WITH locked AS (SELECT pg_advisory_xact_lock(hashtext($2))) INSERT INTO ${table!} (account, tracking_code, status) SELECT $1, $2, $3 FROM locked ON CONFLICT DO NOTHING`;
    apply = async (key) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rowCount } = await client.query(insert, [PROVIDER.apiKey, key.trackingCode, key.status]);
        // The application's own change would run here, in the same transaction.
        if (rowCount === 1) applied++;
        await client.query('COMMIT');
        client.release();
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw error;
      }
    };
  }
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let key: { trackingCode: string; status: string } | undefined;
      try {
        key = verified(request, Buffer.concat(chunks).toString('utf8'));
      } catch {
        reply(response, 400, '{"success":false}');
        return;
      }
      if (key === undefined) {
        reply(response, 401, '{"success":false}');
        return;
      }
      const pending = apply(key);
      if (pending === undefined) {
        reply(response, 200, OK_BODY);
        return;
      }
      pending.then(
        () => {
          reply(response, 200, OK_BODY);
        },
        (error: unknown) => {
          console.error('hand-written receiver: not applied', error);
          reply(response, 500, '{"success":false}');
        },
      );
    });
  };
}

const server = createServer(variant === 'payorch' ? await payorchListener() : await handListener());
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.on('message', (message: { type: string }) => {
  if (message.type === 'applied') process.send?.({ type: 'applied', applied });
});
process.on('disconnect', () => void pool?.end());
announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
