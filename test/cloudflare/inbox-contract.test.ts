import { Miniflare } from 'miniflare';
import type { Request as WorkerRequest } from 'miniflare';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CallbackRetentionError, signCallback } from '../../src/index.js';
import type { CallbackInbox, CallbackInboxContext, CallbackInboxOutcome } from '../../src/index.js';
import { d1InboxTableSql } from '../../src/d1/index.js';
import type { D1DatabaseLike } from '../../src/d1/index.js';
import { inboxContract } from '../../src/testing/index.js';
import type { InboxContractStore } from '../../src/testing/index.js';
import { unsigned } from '../helpers/callbacks.js';
import { deliver } from '../helpers/serve.js';
import { bundleWorker } from '../helpers/worker-bundle.js';
import { PROVIDER } from '../helpers/wire.js';

// The inbox contract against the D1 and Durable Object inboxes as they run: in workerd
// (miniflare), bundled from dist/ as wrangler would. Each `process` is its own request to
// workerd, so the cases' races are requests racing on one database or one object, as two
// Workers' would. The handlers stay in the test: the inbox's `apply` calls back over HTTP
// (miniflare's outboundService), so what they see is what the inbox handed them in workerd.
const worker = `
import { createCallbackReceiver } from 'payorch';
import { createD1Inbox, createD1InboxTable, pruneD1Inbox } from 'payorch/d1';
import { createDurableObjectInbox, pruneDurableObjectInbox } from 'payorch/durable-object';

async function applyInTest(applyUrl, { key, appliedStatuses }) {
  const response = await fetch(applyUrl, { method: 'POST', body: JSON.stringify({ key, appliedStatuses }) });
  if (!response.ok) throw new Error(await response.text());
}
async function run(inbox, { key, applyUrl }) {
  try {
    return Response.json({ outcome: await inbox.process(key, (context) => applyInTest(applyUrl, context)) });
  } catch (error) {
    return Response.json({ name: error.name, message: error.message, recordTime: error.recordTime, horizon: error.horizon }, { status: 500 });
  }
}

export class Account {
  constructor(state) {
    this.state = state;
  }
  async fetch(request) {
    const body = await request.json();
    if (body.op === 'prune') return Response.json({ deleted: await pruneDurableObjectInbox({ storage: this.state.storage, table: body.table, olderThanSeconds: body.olderThanSeconds }) });
    return run(createDurableObjectInbox({ storage: this.state.storage, table: body.table }), body);
  }
}

// A receiver on D1 with the guide's refund-once handler; the refund is a statement of the batch.
const unpaid = (status) => status === 'rejected' || status === 'failed' || status === 'canceled';
function receiverOf(env) {
  const receiver = createCallbackReceiver({ apiKey: env.API_KEY, secretKey: env.SECRET_KEY, inbox: createD1Inbox({ db: env.DB }), onError: () => undefined });
  receiver.on('withdrawal', async (callback, { appliedStatuses, db, statements }) => {
    if (!unpaid(callback.payload.status) || appliedStatuses.some(unpaid)) return;
    // An outside call: the other status arrives meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    statements.push(db.prepare('INSERT INTO refunds (tracking_code, status) VALUES (?, ?)').bind(callback.payload.tracking_code, callback.payload.status));
  });
  return receiver;
}

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname === '/webhooks') return receiverOf(env).handle(request);
    const body = await request.clone().json();
    if (body.backend === 'durable-object') return env.ACCOUNTS.get(env.ACCOUNTS.idFromName(body.table)).fetch(request);
    if (body.op === 'create') {
      await createD1InboxTable({ db: env.DB, table: body.table });
      return Response.json({});
    }
    if (body.op === 'prune') return Response.json({ deleted: await pruneD1Inbox({ db: env.DB, table: body.table, olderThanSeconds: body.olderThanSeconds }) });
    return run(createD1Inbox({ db: env.DB, table: body.table }), body);
  },
};
`;

type Backend = 'd1' | 'durable-object';
let miniflare: Miniflare;
let origin: string;
// miniflare's D1Database type (a copy of @cloudflare/workers-types') is assignable to the entry's own.
let db: D1DatabaseLike;
// The handlers of the requests under way, by the id in their apply URL.
const handlers = new Map<string, (context: CallbackInboxContext) => Promise<void>>();
let serial = 0;

beforeAll(async () => {
  miniflare = new Miniflare({
    modules: true,
    script: await bundleWorker(worker),
    compatibilityDate: '2025-09-01',
    d1Databases: { DB: 'contract' },
    durableObjects: { ACCOUNTS: { className: 'Account', useSQLite: true } },
    bindings: { API_KEY: PROVIDER.apiKey, SECRET_KEY: PROVIDER.secretKey },
    async outboundService(request: WorkerRequest) {
      const handler = handlers.get(new URL(request.url).pathname.slice(1));
      if (handler === undefined) return new Response('no handler', { status: 404 });
      try {
        await handler((await request.json()) as CallbackInboxContext);
        return new Response('applied');
      } catch (error) {
        return new Response(String(error), { status: 500 });
      }
    },
  });
  origin = (await miniflare.ready).origin;
  db = await miniflare.getD1Database('DB');
  await db.batch([db.prepare('CREATE TABLE refunds (tracking_code TEXT NOT NULL, status TEXT NOT NULL)'), db.prepare(d1InboxTableSql())]);
}, 60_000);
afterAll(async () => {
  await miniflare.dispose();
});

async function call(body: Record<string, unknown>): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const response = await fetch(origin, { method: 'POST', body: JSON.stringify(body) });
  return { ok: response.ok, body: (await response.json()) as Record<string, unknown> };
}

/** The inbox in workerd, seen from here: each call one request, its handler run here. */
function inboxIn(backend: Backend, table: string): CallbackInbox {
  return {
    async process(key, apply): Promise<CallbackInboxOutcome> {
      serial += 1;
      const id = String(serial);
      handlers.set(id, apply);
      try {
        const { ok, body } = await call({ backend, op: 'process', table, key, applyUrl: `http://handlers.test/${id}` });
        if (ok) return body['outcome'] as CallbackInboxOutcome;
        // The refusal crossed HTTP as JSON: rebuilt from its fields, as the receiver would answer it.
        if (body['name'] === 'CallbackRetentionError') throw new CallbackRetentionError(key, Number(body['recordTime']), Number(body['horizon']));
        throw new Error(`${String(body['name'])}: ${String(body['message'])}`);
      } finally {
        handlers.delete(id);
      }
    },
  };
}

function storeIn(backend: Backend): () => Promise<InboxContractStore> {
  return async () => {
    serial += 1;
    const table = `contract_${serial}`;
    if (backend === 'd1') await call({ backend, op: 'create', table });
    return {
      inbox: () => inboxIn(backend, table),
      prune: async (olderThanSeconds) => {
        const { ok, body } = await call({ backend, op: 'prune', table, olderThanSeconds });
        if (!ok) throw new Error(`prune: ${JSON.stringify(body)}`);
      },
    };
  };
}

describe.each(['d1', 'durable-object'] as const)('the inbox contract, on the %s inbox in workerd', (backend) => {
  for (const contractCase of inboxContract({ store: storeIn(backend) })) test(contractCase.name, contractCase.run);
});

test('a D1 receiver given rejected and failed of one withdrawal at once refunds once: the loser answers 500, and its redelivery sees the other', async () => {
  const trackingCode = `WIT-d1ends01-${Math.floor(Date.now() / 1000) - 60}`;
  const end = (status: string) => signCallback({ ...unsigned.withdrawal, tracking_code: trackingCode, status }, PROVIDER);
  const url = `${origin}/webhooks`;
  const answers = await Promise.all([deliver(url, end('rejected')), deliver(url, end('failed'))]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 500]);
  const [rejected] = answers;
  const lost = rejected.status === 500 ? 'rejected' : 'failed';
  expect(await deliver(url, end(lost))).toEqual({ status: 200, body: { success: true } });
  expect((await db.prepare('SELECT status FROM refunds WHERE tracking_code = ?').bind(trackingCode).all()).results).toEqual([{ status: lost === 'rejected' ? 'failed' : 'rejected' }]);
});
