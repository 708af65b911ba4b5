/**
 * Bundle: what each entry point weighs once bundled with its dependencies (esbuild, minified,
 * gzipped), and what `import('payorch')` costs a cold process, against an empty `node -e ""`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { runFigure, table } from '../lib/figure.js';
import type { FigureReport, Headline } from '../lib/figure.js';
import { format, median } from '../lib/stats.js';

const TITLE = 'Bundle and cold start';
const root = fileURLToPath(new URL('../../..', import.meta.url));

type Exports = Readonly<Record<string, { readonly import?: { readonly default?: string } } | string>>;

/** The ESM file an entry point of the package resolves to, from package.json's exports map. */
function entryFile(subpath: '.' | './sandbox'): string | undefined {
  const exportsMap = (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { exports: Exports }).exports;
  const entry = exportsMap[subpath];
  const file = typeof entry === 'string' ? entry : entry?.import?.default;
  return file === undefined ? undefined : `${root}/${file}`;
}

/** payorch's runtime dependencies, from package.json. */
function dependencies(): Readonly<Record<string, string>> {
  return (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
}

interface Size {
  readonly minified: number;
  readonly gzipped: number;
  /** Minified bytes per package: payorch's own code, ky, zod. */
  readonly byPackage: Readonly<Record<string, number>>;
}

async function bundle(contents: string): Promise<Size> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const byPackage: Record<string, number> = {};
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? (path.includes('dist/') ? 'payorch' : 'entry');
      byPackage[name] = (byPackage[name] ?? 0) + bytesInOutput;
    }
  }
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength, byPackage };
}

/** Wall milliseconds of each command, run `runs` times in rotating order. */
function coldStarts(commands: readonly { name: string; args: readonly string[] }[], runs: number): Map<string, number[]> {
  const times = new Map<string, number[]>(commands.map((c) => [c.name, []]));
  for (let run = -1; run < runs; run++) {
    for (let c = 0; c < commands.length; c++) {
      const command = commands[(Math.max(run, 0) + c) % commands.length]!;
      const start = performance.now();
      const child = spawnSync(process.execPath, command.args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
      const ms = performance.now() - start;
      if (child.status !== 0) throw new Error(`${command.name} failed: ${child.stderr.toString()}`);
      // The first pass only warms the file system cache.
      if (run >= 0) times.get(command.name)!.push(ms);
    }
  }
  return times;
}

runFigure(async ({ quick }): Promise<FigureReport> => {
  const main = entryFile('.')!;
  const sandbox = entryFile('./sandbox');
  const mainExports = Object.keys(await import('payorch'));
  const has = (name: string) => mainExports.includes(name);
  const entries: { name: string; contents: string | undefined }[] = [
    { name: "`payorch` (everything it exports)", contents: `export * from ${JSON.stringify(main)};` },
    { name: '`payorch/sandbox` (everything it exports)', contents: sandbox === undefined ? undefined : `export * from ${JSON.stringify(sandbox)};` },
    { name: '`import { ProviderClient }`', contents: `export { ProviderClient } from ${JSON.stringify(main)};` },
    { name: '`import { DealerClient }`', contents: has('DealerClient') ? `export { DealerClient } from ${JSON.stringify(main)};` : undefined },
    { name: '`import { verifyCallback }`', contents: has('verifyCallback') ? `export { verifyCallback } from ${JSON.stringify(main)};` : undefined },
  ];
  const sizeRows: string[][] = [];
  const headlines: Headline[] = [];
  for (const entry of entries) {
    if (entry.contents === undefined) {
      sizeRows.push([entry.name, 'not available yet', '', '']);
      continue;
    }
    const size = await bundle(entry.contents);
    const parts = Object.entries(size.byPackage)
      .filter(([name]) => name !== 'entry')
      .sort((a, b) => b[1] - a[1])
      .map(([name, bytes]) => `${name} ${format.bytes(bytes)}`)
      .join(', ');
    sizeRows.push([entry.name, format.bytes(size.minified), `**${format.bytes(size.gzipped)}**`, parts]);
    if (entry.name.startsWith('`payorch')) {
      headlines.push({ figure: `Bundle: ${entry.name.replace(/ \(.*/, '')}, minified + gzipped`, payorch: format.bytes(size.gzipped), baseline: `payorch's own code: ${format.bytes(size.byPackage.payorch ?? 0)} of ${format.bytes(size.minified)} minified` });
    }
  }
  if (sandbox === undefined) headlines.push({ figure: 'Bundle: `payorch/sandbox`', payorch: 'not available yet', baseline: '' });

  const commands = [
    { name: 'node -e ""', args: ['-e', ''] },
    { name: `node --input-type=module -e "await import('payorch')"`, args: ['--input-type=module', '-e', "await import('payorch')"] },
    { name: `node -e "require('payorch')"`, args: ['-e', "require('payorch')"] },
    ...(sandbox === undefined ? [] : [{ name: `node --input-type=module -e "await import('payorch/sandbox')"`, args: ['--input-type=module', '-e', "await import('payorch/sandbox')"] }]),
    // Where the time goes: each runtime dependency alone.
    ...Object.keys(dependencies()).map((name) => ({ name: `node --input-type=module -e "await import('${name}')"`, args: ['--input-type=module', '-e', `await import('${name}')`] })),
  ];
  const runs = quick ? 5 : 21;
  const times = coldStarts(commands, runs);
  const bare = median(times.get('node -e ""')!);
  const startRows = commands.map(({ name }) => {
    const ms = median(times.get(name)!);
    return [`\`${name}\``, `${format.ms(ms)} ${format.spread(times.get(name)!)}`, name === 'node -e ""' ? '' : `**+${format.ms(ms - bare)}**`, format.ratio(ms / bare)];
  });
  const esm = median(times.get(commands[1]!.name)!);
  headlines.push({ figure: "Cold `import('payorch')`", payorch: format.ms(esm), baseline: `${format.ms(bare)} (\`node -e ""\`)`, ratio: esm / bare });
  if (sandbox === undefined) startRows.push([`\`node --input-type=module -e "await import('payorch/sandbox')"\``, 'not available yet', '', '']);

  const markdown = [
    `Each entry point bundled by esbuild with everything it imports (its runtime dependencies included), minified, ESM, platform node, then gzipped at level 9. "Own code" counts the minified bytes esbuild attributes to each package. Tree-shaken rows import one name, as an app that uses one client does.`,
    '',
    table(['entry', 'minified', 'gzipped', 'minified bytes by package'], sizeRows),
    `Cold start: a new node process per run, from the package folder (the package resolves itself through its exports map to dist/), ${runs} runs per command in rotating order after one warm-up pass; median wall time of the process, spawn to exit. The last rows import each runtime dependency alone, to show where the time goes.`,
    '',
    table(['command', 'wall time', 'added by the import', 'ratio'], startRows),
  ].join('\n');
  return { title: TITLE, markdown, headlines };
});
