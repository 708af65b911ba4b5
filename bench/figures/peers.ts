/**
 * Peers: payorch beside the SDKs merchants already use, in the same run on the same machine: cold
 * start in both module systems, bundle size of a client plus webhook verification, and webhook
 * verification against each SDK's own hand-written check. The peers live in bench/peers (their own
 * package.json and lock file), installed by `npm run bench:peers`, never payorch's dependencies.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { PROVIDER } from '../fixtures/accounts.js';
import { bareVerify, callbacks, INPUTS } from '../fixtures/callbacks.js';
import { bundleSize } from '../lib/bundle-size.js';
import { addedToBare, cjsRequire, coldStarts, esmImport, overBare, overFloor } from '../lib/cold-start.js';
import type { ColdCommand } from '../lib/cold-start.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { compareSync } from '../lib/measure.js';
import { payorch } from '../lib/sdk.js';
import { format, median } from '../lib/stats.js';

const TITLE = 'Peers: payorch beside stripe, openai, @octokit/webhooks and standardwebhooks';
const WEBHOOKS_ESM = 'payorch/webhooks ESM';
// The goal for payorch/webhooks' cold start: at most 1.05x the floor, and at or below both webhook-only peers.
const WEBHOOKS_TARGET = 1.05;
const root = fileURLToPath(new URL('../../..', import.meta.url));
const peers = `${root}bench/peers`;

interface Sdk {
  readonly name: string;
  /** Package name to import, resolved from `cwd`. */
  readonly specifier: string;
  readonly cwd: string;
  /** ESM source of the whole client with webhook verification, and of verification alone. */
  readonly clientAndVerify: string;
  readonly verifyAlone: string;
  readonly verifyNote: string;
}

const version = (name: string, cwd: string): string =>
  (JSON.parse(readFileSync(`${cwd}/node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;

function sdks(): Sdk[] {
  return [
    {
      name: 'payorch',
      specifier: 'payorch',
      cwd: root,
      clientAndVerify: "export { ProviderClient, DealerClient, verifyCallback, createCallbackReceiver } from 'payorch';",
      verifyAlone: "export { verifyCallback } from 'payorch';",
      verifyNote: '`verifyCallback`',
    },
    {
      name: `stripe ${version('stripe', peers)}`,
      specifier: 'stripe',
      cwd: peers,
      clientAndVerify: "export { default } from 'stripe';",
      verifyAlone: "export { default } from 'stripe';",
      verifyNote: '`webhooks.constructEvent` hangs off the client: verify alone pulls in the SDK',
    },
    {
      name: `openai ${version('openai', peers)}`,
      specifier: 'openai',
      cwd: peers,
      clientAndVerify: "export { default } from 'openai';",
      verifyAlone: "export { default } from 'openai';",
      verifyNote: '`client.webhooks.unwrap`: verify alone is the whole client',
    },
    {
      name: `@octokit/webhooks ${version('@octokit/webhooks', peers)}`,
      specifier: '@octokit/webhooks',
      cwd: peers,
      clientAndVerify: "export { Webhooks } from '@octokit/webhooks';",
      verifyAlone: "export { verify } from '@octokit/webhooks-methods';",
      verifyNote: 'no API client (webhooks only); verify alone is `@octokit/webhooks-methods`',
    },
    {
      name: `standardwebhooks ${version('standardwebhooks', peers)}`,
      specifier: 'standardwebhooks',
      cwd: peers,
      clientAndVerify: "export { Webhook } from 'standardwebhooks';",
      verifyAlone: "export { Webhook } from 'standardwebhooks';",
      verifyNote: 'no API client (webhooks only); `Webhook.verify`',
    },
  ];
}

interface StripeModule {
  readonly webhooks: {
    constructEvent(payload: string, header: string, secret: string): unknown;
    generateTestHeaderString(options: { payload: string; secret: string; timestamp?: number }): string;
  };
}

/** Stripe's `constructEvent` against the least a receiver writes for Stripe by hand. */
function stripeVerification(quick: boolean): { bare: number; sdk: number } {
  const require = createRequire(`${peers}/package.json`);
  const Stripe = require('stripe') as new (key: string) => StripeModule;
  const stripe = new Stripe('sk_test_bench');
  const secret = 'whsec_bench_secret';
  const timestamp = Math.floor(Date.now() / 1000);
  const events = Array.from({ length: INPUTS }, (_, i) => {
    const payload = JSON.stringify({ id: `evt_${i}`, object: 'event', type: 'payment_intent.succeeded', created: timestamp, data: { object: { id: `pi_${i}`, amount: 100 + i, currency: 'eur', status: 'succeeded' } } });
    return { payload, header: stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }) };
  });
  const bare = (i: number): unknown => {
    const { payload, header } = events[i % INPUTS]!;
    let t = '';
    let v1 = '';
    for (const part of header.split(',')) {
      const [key, value = ''] = part.split('=');
      if (key === 't') t = value;
      else if (key === 'v1') v1 = value;
    }
    const expected = createHmac('sha256', secret).update(`${t}.${payload}`, 'utf8').digest();
    const given = Buffer.from(v1, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || Math.abs(Date.now() / 1000 - Number(t)) > 300) throw new Error('refused');
    return JSON.parse(payload) as unknown;
  };
  const sdk = (i: number): unknown => stripe.webhooks.constructEvent(events[i % INPUTS]!.payload, events[i % INPUTS]!.header, secret);
  for (let i = 0; i < INPUTS; i++) {
    bare(i);
    sdk(i);
  }
  const results = compareSync(
    [
      { name: 'bare', run: bare },
      { name: 'sdk', run: sdk },
    ],
    quick ? { rounds: 3, roundMs: 100 } : { rounds: 15, roundMs: 300 },
  );
  return { bare: median(results.get('bare')!), sdk: median(results.get('sdk')!) };
}

/** payorch's `verifyCallback` (raw body) against its hand-written check, as in the verification figure. */
function payorchVerification(quick: boolean): { bare: number; sdk: number } {
  const inputs = callbacks();
  const options = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
  const results = compareSync(
    [
      { name: 'bare', run: (i: number) => bareVerify(inputs[i % INPUTS]!.headers, JSON.parse(inputs[i % INPUTS]!.body) as Record<string, unknown>) },
      { name: 'sdk', run: (i: number) => payorch.verifyCallback({ headers: inputs[i % INPUTS]!.headers, body: inputs[i % INPUTS]!.body }, options) },
    ],
    quick ? { rounds: 3, roundMs: 100 } : { rounds: 15, roundMs: 300 },
  );
  return { bare: median(results.get('bare')!), sdk: median(results.get('sdk')!) };
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  if (!existsSync(`${peers}/node_modules/stripe`)) {
    return {
      title: TITLE,
      markdown: 'Not measured in this run: the peers are not installed. `npm run bench:peers` installs bench/peers (its own package.json and lock file) and runs the whole bench with them.\n',
      headlines: [{ figure: 'Peers', payorch: 'not measured (run `npm run bench:peers`)', baseline: '' }],
    };
  }
  const list = sdks();
  const commands: ColdCommand[] = list.flatMap((sdk) => [
    { name: `${sdk.name} ESM`, args: esmImport(sdk.specifier), cwd: sdk.cwd, system: 'esm' },
    { name: `${sdk.name} CJS`, args: cjsRequire(sdk.specifier), cwd: sdk.cwd, system: 'cjs' },
  ]);
  // A webhooks-only app imports the webhooks entry: the peer to @octokit/webhooks and standardwebhooks.
  commands.push({ name: WEBHOOKS_ESM, args: esmImport('payorch/webhooks'), cwd: root, system: 'esm' });
  const runs = quick ? 3 : 21;
  const cold = coldStarts(commands, runs);
  const added = (name: string) => `+${format.ms(median(addedToBare(cold.get(name)!, 'wall')))} (+${format.ms(median(addedToBare(cold.get(name)!, 'cpu')))} CPU)`;
  const over = (name: string) => overFloor(cold.get(name)!);
  const ratioCell = (name: string) => `**${format.ratio(over(name).wall)}** (CPU ${format.ratio(over(name).cpu)})`;
  const bareCell = (name: string) => format.ratio(overBare(cold.get(name)!).wall);
  const coldRows = list.map((sdk) => [sdk.name, ratioCell(`${sdk.name} ESM`), ratioCell(`${sdk.name} CJS`), added(`${sdk.name} ESM`), added(`${sdk.name} CJS`)]);
  // The webhook-only peers: what a receiver that only verifies and applies callbacks imports.
  const webhookPeers = list.filter((sdk) => sdk.specifier === '@octokit/webhooks' || sdk.specifier === 'standardwebhooks');
  const webhooksRows = [
    ['`payorch/webhooks`', ratioCell(WEBHOOKS_ESM), bareCell(WEBHOOKS_ESM), added(WEBHOOKS_ESM)],
    ...webhookPeers.map((sdk) => [sdk.name, ratioCell(`${sdk.name} ESM`), bareCell(`${sdk.name} ESM`), added(`${sdk.name} ESM`)]),
  ];
  const webhooksRatio = over(WEBHOOKS_ESM).wall;

  const bundleRows: string[][] = [];
  const sizes = new Map<string, { client: number; verify: number }>();
  for (const sdk of list) {
    const both = await bundleSize(sdk.clientAndVerify, sdk.cwd, 'edge');
    const verify = await bundleSize(sdk.verifyAlone, sdk.cwd, 'edge');
    sizes.set(sdk.name, { client: both.gzipped, verify: verify.gzipped });
    bundleRows.push([sdk.name, `**${format.bytes(both.gzipped)}**`, `**${format.bytes(verify.gzipped)}**`, `\`${sdk.clientAndVerify}\` / \`${sdk.verifyAlone}\``, sdk.verifyNote]);
  }
  const names = list.map((sdk) => sdk.name.replace(/ [\d.]+$/, '')).join(' / ');

  const ours = payorchVerification(quick);
  const stripe = stripeVerification(quick);
  const ratio = (v: { bare: number; sdk: number }) => v.bare / v.sdk;
  const verifyRows = [
    ['payorch `verifyCallback` (raw body)', format.us(1e6 / ours.bare), format.us(1e6 / ours.sdk), `**${format.ratio(ratio(ours))}**`, 'SHA-256 of keys + fields, constant-time compare, JSON.parse'],
    [`${list[1]!.name} \`webhooks.constructEvent\``, format.us(1e6 / stripe.bare), format.us(1e6 / stripe.sdk), `**${format.ratio(ratio(stripe))}**`, 'HMAC-SHA256 of `t.payload`, constant-time compare, tolerance, JSON.parse'],
  ];
  const headlines: Headline[] = [
    { figure: `Peers: cold \`import()\` over the floor (${names})`, payorch: list.map((sdk) => format.ratio(over(`${sdk.name} ESM`).wall)).join(' / '), baseline: 'same run' },
    { figure: `Peers: cold \`require()\` over the floor (${names})`, payorch: list.map((sdk) => format.ratio(over(`${sdk.name} CJS`).wall)).join(' / '), baseline: 'same run' },
    { figure: `Peers: edge bundle of verification alone, min+gz (${names})`, payorch: list.map((sdk) => format.bytes(sizes.get(sdk.name)!.verify)).join(' / '), baseline: 'same run' },
    { figure: `Peers: edge bundle of the whole client with verification, min+gz (${names})`, payorch: list.map((sdk) => format.bytes(sizes.get(sdk.name)!.client)).join(' / '), baseline: 'same run' },
    {
      figure: `Peers: cold \`import()\` of the webhooks entry over the floor (\`payorch/webhooks\` / ${webhookPeers.map((sdk) => sdk.name.replace(/ [\d.]+$/, '')).join(' / ')})`,
      payorch: [WEBHOOKS_ESM, ...webhookPeers.map((sdk) => `${sdk.name} ESM`)].map((name) => format.ratio(over(name).wall)).join(' / '),
      baseline: 'same run',
      target: { text: `≤ ${WEBHOOKS_TARGET}x and ≤ both peers`, met: webhooksRatio <= WEBHOOKS_TARGET && webhookPeers.every((sdk) => webhooksRatio <= over(`${sdk.name} ESM`).wall) },
    },
    { figure: 'Peers: verify over its hand-written check (payorch / stripe)', payorch: `${format.ratio(ratio(ours))} / ${format.ratio(ratio(stripe))}`, baseline: 'same run' },
  ];
  const markdown = [
    `The peers come from bench/peers (own package.json and lock file, installed by \`npm run bench:peers\`); payorch is this checkout's dist/. Cold start as in the bundle figure, all SDKs in the same run, each from its package's folder: ${runs} runs per command, each started next to a bare \`node -e ""\` and to the floor (a package doing nothing, loaded the same way). "Over the floor" is the median of each run's ratio to its floor, in wall time (in bold) and in CPU time (payorch's target: at most 1.25x); "added" is the median of the differences from bare node.`,
    '',
    table(['SDK', 'cold `import()` over the floor (ESM)', 'cold `require()` over the floor (CommonJS)', '`import()` added', '`require()` added'], coldRows),
    `A receiver that only verifies and applies callbacks imports the webhooks entry: \`import('payorch/webhooks')\` against the webhook-only peers, in the same runs (target: at most ${WEBHOOKS_TARGET}x the floor, and at or below both peers).`,
    '',
    table(['entry', 'cold `import()` over the floor (ESM)', 'over bare node', '`import()` added'], webhooksRows),
    `Edge bundles: esbuild \`--bundle --minify --platform=neutral\` with the edge conditions (workerd, worker, edge-light, browser; main fields module, main), ESM, gzipped at level 9, of the whole client an app imports with webhook verification, and of verification alone (payorch's targets: at most 25 KiB and 10 KiB).`,
    '',
    table(['SDK', 'whole client + verify, min+gz', 'verify alone, min+gz', 'bundled (client / verify)', 'note'], bundleRows),
    `Webhook verification, each SDK against the least a receiver writes by hand with node:crypto for the same scheme (${INPUTS} distinct signed bodies; medians of CPU time per call over alternating rounds). openai's and @octokit/webhooks' verification is asynchronous (Web Crypto) and is not in this table.`,
    '',
    table(['check', 'by hand', 'SDK', 'ratio', 'work'], verifyRows),
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
