/**
 * The sandbox: signed requests per second `createSandbox().listen()` serves on loopback, and the
 * server CPU each costs, against a bare node:http server that only checks the signature and
 * answers canned JSON. Both servers run in their own process; the same client loads both.
 */
import { PROVIDER } from '../fixtures/accounts.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { basicHash, unixSeconds } from '../lib/hash.js';
import { closedLoop, send } from '../lib/load.js';
import type { LoadTarget } from '../lib/load.js';
import { startServer } from '../lib/processes.js';
import type { ServerProcess } from '../lib/processes.js';
import type { SandboxAccounts } from 'payorch/sandbox';
import { format, median } from '../lib/stats.js';
import { Agent } from 'node:http';

const TITLE = 'Sandbox';
const CONCURRENCY = 16;

interface Keys {
  readonly apiKey: string;
  readonly secretKey: string;
  readonly credentialKey: string;
}

const sign = (keys: Keys, between: string) => {
  const timestamp = unixSeconds();
  return { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': keys.apiKey, 'x-timestamp': timestamp, 'x-hash': basicHash(keys.apiKey, keys.secretKey + between, timestamp) };
};

/** The two calls measured: a read (basic hash) and a payment that creates a record (credential hash). */
function targets(url: string, keys: Keys): { name: string; target: LoadTarget }[] {
  return [
    { name: 'POST /api/provider/welcome (basic hash)', target: { url, method: 'POST', path: '/api/provider/welcome', headers: () => sign(keys, '') } },
    {
      name: 'POST /api/provider/start-manual-deposit (credential hash, creates a record)',
      target: {
        url,
        method: 'POST',
        path: '/api/provider/start-manual-deposit',
        body: JSON.stringify({ fullname: 'Ayşe Yılmaz', username: 'ayse.yilmaz', user_id: 'u-1048576', amount: 1500 }),
        headers: () => ({ ...sign(keys, keys.credentialKey), 'x-credential-key': keys.credentialKey }),
      },
    },
  ];
}

async function measure(server: ServerProcess<unknown>, target: LoadTarget, durationMs: number): Promise<{ rps: number; cpuPerRequest: number }> {
  const cpuBefore = await server.cpu();
  const { requests, ms } = await closedLoop(target, { concurrency: CONCURRENCY, durationMs });
  const cpuAfter = await server.cpu();
  return { rps: (requests * 1000) / ms, cpuPerRequest: (cpuAfter - cpuBefore) / requests };
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  const bare = await startServer('children/canned-server');
  const sandbox = await startServer<SandboxAccounts>('children/sandbox-server');
  try {
    const bareTargets = targets(bare.url, PROVIDER);
    const sandboxTargets = targets(sandbox.url, { apiKey: sandbox.info.provider.apiKey, secretKey: sandbox.info.provider.secretKey, credentialKey: sandbox.info.provider.sites[0].credentialKey });
    // Each target must answer 200 and success: true before it is loaded.
    const agent = new Agent({ keepAlive: false });
    for (const { target } of [...bareTargets, ...sandboxTargets]) {
      const { status, body } = await send(target, agent);
      if (status !== 200 || (JSON.parse(body) as { success?: unknown }).success !== true) throw new Error(`${target.url}${target.path} answered ${status}: ${body.slice(0, 300)}`);
    }

    const settings = quick ? { rounds: 2, durationMs: 300 } : { rounds: 5, durationMs: 1000 };
    const rows: string[][] = [];
    const headlines: Headline[] = [];
    for (let t = 0; t < bareTargets.length; t++) {
      const results = { bare: [] as { rps: number; cpuPerRequest: number }[], sandbox: [] as { rps: number; cpuPerRequest: number }[] };
      // Warm-up: JIT, connection pool and, for the sandbox, its first records.
      await closedLoop(bareTargets[t]!.target, { concurrency: CONCURRENCY, durationMs: 300 });
      await closedLoop(sandboxTargets[t]!.target, { concurrency: CONCURRENCY, durationMs: 300 });
      for (let round = 0; round < settings.rounds; round++) {
        results.bare.push(await measure(bare, bareTargets[t]!.target, settings.durationMs));
        results.sandbox.push(await measure(sandbox, sandboxTargets[t]!.target, settings.durationMs));
      }
      const b = { rps: median(results.bare.map((r) => r.rps)), cpu: median(results.bare.map((r) => r.cpuPerRequest)) };
      const bareCell = `${format.perSecond(b.rps)} (${format.us(b.cpu)} CPU)`;
      const s = { rps: median(results.sandbox.map((r) => r.rps)), cpu: median(results.sandbox.map((r) => r.cpuPerRequest)) };
      rows.push([bareTargets[t]!.name, bareCell, `**${format.perSecond(s.rps)}** (${format.us(s.cpu)} CPU)`, format.ratio(b.rps / s.rps), format.ratio(s.cpu / b.cpu)]);
      headlines.push({ figure: `${TITLE}: ${bareTargets[t]!.name.replace(/ \(.*/, '')}`, payorch: format.perSecond(s.rps), baseline: `${format.perSecond(b.rps)} (bare signed node:http)`, ratio: b.rps / s.rps });
    }

    const markdown = [
      `A closed loop of ${CONCURRENCY} keep-alive node:http connections, each signing and sending its next request as soon as the previous answer is read, for ${settings.rounds} rounds of ${settings.durationMs} ms per server; medians. The baseline server is node:http checking X-Api-Key, X-Timestamp and X-Hash with node:crypto and answering canned JSON; the sandbox does everything the service does (authentication, IP whitelist, validation, records, answers in the spec's shapes). Server CPU is \`process.cpuUsage()\` of the server process per request served: the cost of a request independent of the load generator, which shares the two cores with the server.`,
      '',
      table(['request', 'bare signed server', 'sandbox', 'ratio (throughput)', 'ratio (server CPU)'], rows),
    ].join('\n');
    return { title: TITLE, markdown, headlines };
  } finally {
    await bare.stop();
    await sandbox.stop();
  }
});
