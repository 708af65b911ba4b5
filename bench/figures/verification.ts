/**
 * Callback verification: `verifyCallback` against the least a receiver must do by hand with
 * node:crypto: read tracking_code and status from the body, SHA-256 them with the keys and the
 * timestamp (spec 5.3), compare with X-Hash in constant time. Same inputs for both.
 */
import { PROVIDER } from '../fixtures/accounts.js';
import { bareVerify, callbacks, INPUTS } from '../fixtures/callbacks.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { compareSync } from '../lib/measure.js';
import { payorch } from '../lib/sdk.js';
import { format, median } from '../lib/stats.js';

const TITLE = 'Callback verification';
// At most 1.3x a hand-written node:crypto check of the same callback.
const TARGET = 1.3;

runFigure(({ quick }): FigureReport => {
  const inputs = callbacks();
  const { verifyCallback } = payorch;
  const options = { apiKey: PROVIDER.apiKey, secretKey: PROVIDER.secretKey };
  const at = (i: number) => inputs[i % INPUTS]!;

  const forms = [
    {
      form: 'raw body (string, as read from the socket)',
      bare: (i: number) => {
        const input = at(i);
        return bareVerify(input.headers, JSON.parse(input.body) as Record<string, unknown>);
      },
      payorch: (i: number) => verifyCallback({ headers: at(i).headers, body: at(i).body }, options),
    },
    {
      form: 'parsed body (object, from a framework)',
      bare: (i: number) => bareVerify(at(i).headers, at(i).parsed),
      payorch: (i: number) => verifyCallback({ headers: at(i).headers, body: at(i).parsed }, options),
    },
  ];

  // Both must accept every input and refuse a changed status before any timing counts.
  const tampered = { ...at(0), body: at(0).body.replace(/"status":"\w+"/, '"status":"completed_"') };
  for (const { bare, payorch } of forms) {
    for (let i = 0; i < INPUTS; i++) {
      if (!bare(i)) throw new Error('the bare check refused a valid callback');
      payorch(i);
    }
  }
  if (bareVerify(tampered.headers, JSON.parse(tampered.body) as Record<string, unknown>)) throw new Error('the bare check accepted a changed status');
  let refused = false;
  try {
    verifyCallback({ headers: tampered.headers, body: tampered.body }, options);
  } catch {
    refused = true;
  }
  if (!refused) throw new Error('verifyCallback accepted a changed status');

  const settings = quick ? { rounds: 3, roundMs: 100 } : { rounds: 15, roundMs: 300 };
  const rows: string[][] = [];
  const headlines: Headline[] = [];
  for (const { form, bare, payorch } of forms) {
    const results = compareSync(
      [
        { name: 'bare', run: bare },
        { name: 'payorch', run: payorch },
      ],
      settings,
    );
    const bareOps = median(results.get('bare')!);
    const sdkOps = median(results.get('payorch')!);
    const ratio = bareOps / sdkOps;
    rows.push([form, `${format.perSecond(bareOps)} (${format.us(1e6 / bareOps)})`, `${format.perSecond(sdkOps)} (${format.us(1e6 / sdkOps)})`, `**${format.ratio(ratio)}**`]);
    headlines.push({
      figure: `${TITLE}: ${form.replace(/ \(.*/, '')}`,
      payorch: format.perSecond(sdkOps),
      baseline: `${format.perSecond(bareOps)} (node:crypto)`,
      ratio,
      target: { text: `≤ ${TARGET}x`, met: ratio <= TARGET },
    });
  }

  const markdown = [
    `${INPUTS} distinct signed deposit callbacks (spec 6.2), with the ten headers Node's \`IncomingMessage.headers\` gives for such a POST. The baseline is the least a receiver can do by hand: read tracking_code and status from the body (\`JSON.parse\` for the raw form), SHA-256 of api_key + secret_key + tracking_code + status + X-Timestamp with node:crypto, \`timingSafeEqual\` against X-Hash. \`verifyCallback\` also checks the timestamp tolerance, the API key, the body's own hash and timestamp, and the body's schema, and returns a typed payload. Before timing, both accept every input and refuse one with a changed status. ${settings.rounds} rounds of ${settings.roundMs} ms per variant, alternating; medians of calls per CPU second (CPU time per call in brackets). The ratio is time per call, payorch over bare.`,
    '',
    table(['input', 'bare node:crypto', 'verifyCallback', 'ratio (target ≤ 1.3x)'], rows),
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
