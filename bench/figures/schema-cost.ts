/**
 * Schema cost: what validating an answer costs per call, for every response schema of
 * payorch/schemas, next to `JSON.parse` of the same body (which every client pays anyway).
 */
// The built package through its exports map, as bench/lib/sdk.ts loads payorch.
import * as schemas from 'payorch/schemas';
import type { z } from 'zod';
import { responseBodies } from '../fixtures/bodies.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { compareSync } from '../lib/measure.js';
import { format, median } from '../lib/stats.js';

const TITLE = 'Schema cost';

/** Exported schemas that are parts of the measured ones, not answers of their own. */
const PARTS = new Set(['Site', 'DepositStatus', 'WithdrawalStatus', 'CardPaymentStatus', 'Gateway', 'EibanAccount', 'Transaction', 'Transfer', 'TransferStatus']);

const isSchema = (value: unknown): value is z.ZodType => typeof value === 'object' && value !== null && '_zod' in value && 'safeParse' in value;

runFigure(({ quick }): FigureReport => {
  const settings = quick ? { rounds: 3, roundMs: 15 } : { rounds: 9, roundMs: 40 };
  const rows: string[][] = [];
  const missing: string[] = [];
  const costs: number[] = [];
  for (const [name, body] of Object.entries(responseBodies)) {
    const schema: unknown = (schemas as Readonly<Record<string, unknown>>)[name];
    if (!isSchema(schema)) {
      missing.push(name);
      continue;
    }
    const text = JSON.stringify(body);
    const parsed: unknown = JSON.parse(text);
    const check = schema.safeParse(parsed);
    if (!check.success) throw new Error(`the ${name} fixture does not match its schema: ${JSON.stringify(check.error.issues)}`);
    const results = compareSync(
      [
        { name: 'json', run: () => JSON.parse(text) as unknown },
        { name: 'schema', run: () => schema.parse(parsed) },
      ],
      settings,
    );
    const json = 1e6 / median(results.get('json')!);
    const zod = 1e6 / median(results.get('schema')!);
    costs.push(zod);
    rows.push([`\`${name}\``, format.bytes(Buffer.byteLength(text)), format.us(json), `**${format.us(zod)}**`, format.ratio(zod / json)]);
  }
  for (const name of missing) rows.push([`\`${name}\``, '', '', 'not available yet', '']);

  const unmeasured = Object.entries(schemas)
    .filter(([name, value]) => isSchema(value) && !name.endsWith('Params') && !PARTS.has(name) && !(name in responseBodies))
    .map(([name]) => `\`${name}\``);
  const headlines: Headline[] = [
    {
      figure: `${TITLE}: response schemas (${costs.length} measured)`,
      payorch: costs.length === 0 ? '' : `${format.us(Math.min(...costs))} to ${format.us(Math.max(...costs))} per parse`,
      baseline: 'JSON.parse of the same body, per schema below',
    },
  ];
  const markdown = [
    `\`schema.parse()\` of an already parsed realistic body (fixtures in bench/fixtures/bodies.ts), against \`JSON.parse\` of the same body's text. ${settings.rounds} rounds of ${settings.roundMs} ms each, alternating; medians of CPU time per call. The ratio is schema time over JSON.parse time.`,
    '',
    table(['schema', 'body', 'JSON.parse', 'schema parse', 'ratio'], rows),
    unmeasured.length === 0 ? '' : `Exported answer schemas without a fixture, not measured: ${unmeasured.join(', ')}.\n`,
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
