/**
 * Bundle: what each entry point weighs once bundled with its dependencies (esbuild, minified,
 * gzipped), and what `import()` and `require()` of each entry cost a cold `node` process over the
 * floor, a process that loads a package doing nothing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleSize } from '../lib/bundle-size.js';
import { addedToBare, cjsRequire, coldStarts, esmImport, esmScript, overBare, overFloor } from '../lib/cold-start.js';
import type { ColdCommand, ColdRatio, ModuleSystem } from '../lib/cold-start.js';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { format, median } from '../lib/stats.js';

const TITLE = 'Bundle and cold start';
// The goals: cold start at most 1.25x the floor (a process that imports a package doing nothing);
// edge bundles at most 10 KiB (verify alone) and 25 KiB (both clients, verify and the receiver),
// min+gz.
const COLD_TARGET_RATIO = 1.25;
// The goal for payorch/webhooks, which loads neither ky nor zod: at most 1.05x the floor.
const WEBHOOKS_COLD_TARGET_RATIO = 1.05;
const VERIFY_TARGET_BYTES = 10 * 1024;
const BUNDLE_TARGET_BYTES = 25 * 1024;
const root = fileURLToPath(new URL('../../..', import.meta.url));

type Exports = Readonly<Record<string, { readonly import?: { readonly default?: string } } | string>>;

/** The ESM file an entry point of the package resolves to, from package.json's exports map. */
function entryFile(subpath: '.' | './sandbox' | './webhooks'): string | undefined {
  const exportsMap = (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { exports: Exports }).exports;
  const entry = exportsMap[subpath];
  const file = typeof entry === 'string' ? entry : entry?.import?.default;
  return file === undefined ? undefined : `${root}/${file}`;
}

/** payorch's runtime dependencies, from package.json. */
function dependencies(): Readonly<Record<string, string>> {
  return (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  const main = entryFile('.')!;
  const sandbox = entryFile('./sandbox');
  const webhooks = entryFile('./webhooks');
  const mainExports = Object.keys(await import('payorch'));
  const has = (name: string) => mainExports.includes(name);
  const from = (names: string) => `export { ${names} } from ${JSON.stringify(main)};`;
  // A small app of its own that validates with zod, resolved from payorch's node_modules.
  const appZod = `import * as z from 'zod'; export const Order = z.object({ id: z.string(), amount: z.number().positive() });`;
  const entries: { name: string; contents: string | undefined; target?: boolean }[] = [
    { name: '`payorch` (everything it exports)', contents: `export * from ${JSON.stringify(main)};` },
    { name: '`payorch/sandbox` (everything it exports)', contents: sandbox === undefined ? undefined : `export * from ${JSON.stringify(sandbox)};` },
    { name: '`import { ProviderClient, DealerClient, verifyCallback, createCallbackReceiver }` (both clients, verify, receiver)', contents: from('ProviderClient, DealerClient, verifyCallback, createCallbackReceiver'), target: true },
    { name: '`import { ProviderClient, verifyCallback }` (client + verify)', contents: from('ProviderClient, verifyCallback') },
    { name: '`import { ProviderClient }`', contents: from('ProviderClient') },
    { name: '`import { DealerClient }`', contents: has('DealerClient') ? from('DealerClient') : undefined },
    { name: '`import { verifyCallback }` (verify alone)', contents: from('verifyCallback') },
    { name: '`payorch/webhooks` (everything it exports)', contents: webhooks === undefined ? undefined : `export * from ${JSON.stringify(webhooks)};` },
    { name: 'an app using zod itself, without payorch', contents: appZod },
    { name: 'the same app + `{ ProviderClient, verifyCallback }`', contents: `${appZod}\n${from('ProviderClient, verifyCallback')}` },
  ];
  const sizeRows: string[][] = [];
  const headlines: Headline[] = [];
  const gzipped = new Map<string, number>();
  for (const entry of entries) {
    if (entry.contents === undefined) {
      sizeRows.push([entry.name, 'not available yet', '', '']);
      continue;
    }
    // payorch/sandbox is Node-only (node:http): bundled for Node; everything else for the edge.
    const size = await bundleSize(entry.contents, root, entry.contents.includes('sandbox') ? 'node' : 'edge');
    gzipped.set(entry.name, size.gzipped);
    const parts = Object.entries(size.byPackage)
      .filter(([name]) => name !== 'entry')
      .sort((a, b) => b[1] - a[1])
      .map(([name, bytes]) => `${name} ${format.bytes(bytes)}`)
      .join(', ');
    sizeRows.push([entry.name, format.bytes(size.minified), `**${format.bytes(size.gzipped)}**`, parts]);
    if (entry.target === true) {
      headlines.push({
        figure: 'Bundle (edge): both clients + verify + receiver, minified + gzipped',
        payorch: format.bytes(size.gzipped),
        baseline: '',
        target: { text: `≤ ${format.bytes(BUNDLE_TARGET_BYTES)}`, met: size.gzipped <= BUNDLE_TARGET_BYTES },
      });
    }
  }
  const verifyAlone = gzipped.get('`import { verifyCallback }` (verify alone)');
  if (verifyAlone !== undefined) {
    headlines.push({ figure: 'Bundle (edge): `verifyCallback` alone, minified + gzipped', payorch: format.bytes(verifyAlone), baseline: '', target: { text: `≤ ${format.bytes(VERIFY_TARGET_BYTES)}`, met: verifyAlone <= VERIFY_TARGET_BYTES } });
  }
  const withApp = [gzipped.get(entries[8]!.name), gzipped.get(entries[9]!.name)];
  if (withApp[0] !== undefined && withApp[1] !== undefined) {
    headlines.push({ figure: 'Bundle: client + verify added to an app that uses zod itself', payorch: `+${format.bytes(withApp[1] - withApp[0])}`, baseline: `app alone ${format.bytes(withApp[0])}` });
  }

  const command = (name: string, args: readonly string[], system: ModuleSystem = 'esm'): ColdCommand => ({ name, args, cwd: root, system });
  const commands: ColdCommand[] = [
    command(`node --input-type=module -e "await import('payorch')"`, esmImport('payorch')),
    command(`node -e "require('payorch')"`, cjsRequire('payorch'), 'cjs'),
    ...(webhooks === undefined
      ? []
      : [command(`node --input-type=module -e "await import('payorch/webhooks')"`, esmImport('payorch/webhooks')), command(`node -e "require('payorch/webhooks')"`, cjsRequire('payorch/webhooks'), 'cjs')]),
    ...(sandbox === undefined ? [] : [command(`node --input-type=module -e "await import('payorch/sandbox')"`, esmImport('payorch/sandbox'))]),
    // Where the time goes: each runtime dependency alone (zod's runtime is bundled into dist/, so
    // its row is what an app that imports zod itself pays for it), then payorch after zod.
    ...Object.keys(dependencies()).map((name) => command(`node --input-type=module -e "await import('${name}')"`, esmImport(name))),
    command(`node --input-type=module -e "await import('zod'); await import('payorch')"`, esmScript("await import('zod'); await import('payorch')")),
  ];
  const runs = quick ? 3 : 21;
  const times = coldStarts(commands, runs);
  const cell = (ratio: ColdRatio) => `**${format.ratio(ratio.wall)}** (CPU ${format.ratio(ratio.cpu)})`;
  const startRows = commands.map(({ name }) => {
    const slots = times.get(name)!;
    const wall = addedToBare(slots, 'wall');
    return [
      `\`${name}\``,
      cell(overFloor(slots)),
      cell(overBare(slots)),
      `**+${format.ms(median(wall))}**`,
      `±${format.ms((quartile(wall, 0.75) - quartile(wall, 0.25)) / 2)}`,
      `**+${format.ms(median(addedToBare(slots, 'cpu')))}**`,
      `${format.ms(median(slots.map((slot) => slot.bare.wall)))} (${format.ms(median(slots.map((slot) => slot.bare.cpu)))} CPU)`,
    ];
  });
  const headlineCommands = [
    [0, 'ESM', 'payorch', COLD_TARGET_RATIO],
    [1, 'CommonJS', 'payorch', COLD_TARGET_RATIO],
    ...(webhooks === undefined ? [] : ([[2, 'ESM', 'payorch/webhooks', WEBHOOKS_COLD_TARGET_RATIO], [3, 'CommonJS', 'payorch/webhooks', WEBHOOKS_COLD_TARGET_RATIO]] as const)),
  ] as const;
  for (const [index, system, entry, target] of headlineCommands) {
    const slots = times.get(commands[index]!.name)!;
    const ratio = overFloor(slots).wall;
    headlines.push({
      figure: `Cold start: ${system === 'ESM' ? `\`import('${entry}')\`` : `\`require('${entry}')\``} (${system}), over the floor`,
      payorch: `${format.ms(median(slots.map((slot) => slot.measured.wall)))} wall`,
      baseline: `${format.ms(median(slots.map((slot) => slot.floor.wall)))} wall (the floor: a package doing nothing)`,
      ratio,
      target: { text: `≤ ${target}x`, met: ratio <= target },
    });
  }

  const markdown = [
    `Each entry bundled by esbuild as for an edge runtime (\`--bundle --minify --platform=neutral\`, conditions \`workerd,worker,edge-light,browser\`) with everything it imports (its runtime dependencies included), then gzipped at level 9. "By package" counts the minified bytes esbuild attributes to each package; \`payorch\` is dist/, which carries zod's runtime (bundled, tree-shaken). Tree-shaken rows import only the names shown, as an app that uses one client does. The last two rows show what payorch adds to an app that already bundles its own zod (two copies of zod's core then ship).`,
    '',
    table(['entry', 'minified', 'gzipped', 'minified bytes by package'], sizeRows),
    `Cold start: what each command costs a fresh \`node\` process, from the package folder (payorch resolves itself through its exports map to dist/), against two baselines started next to it: a bare \`node -e ""\`, and the floor, a process that loads a package doing nothing in the same way (\`import()\` of the package ../shared/bench/cold-peers.mjs creates, or \`require()\` of a CommonJS one). Any module costs a process something to resolve and load, so the goals are judged over the floor, as that script judges them: at most ${COLD_TARGET_RATIO}x, and ${WEBHOOKS_COLD_TARGET_RATIO}x for payorch/webhooks. Each of the ${runs} runs of a command is started next to its two baselines, in an order that alternates, after one warm-up pass; ratios are the medians of each slot's measured / baseline in wall time, judged as that script judges them, with the same in the process's own CPU time (user + system, read by the process just before it exits) beside it: on a loaded machine wall time stretches while CPU time does not. "Added" is the median of the slots' differences from bare node (± half their interquartile range). The bare column is the median of the bare runs.`,
    '',
    table(['command', 'over the floor', 'over bare node', 'wall added to bare node', 'spread', 'CPU added', 'bare node'], startRows),
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});

function quartile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] ?? Number.NaN;
}
