/**
 * `npm run bench`: compiles the figure scripts, runs each in its own process against the built
 * package, and writes bench/RESULTS.md. `npm run bench -- --quick` runs small sizes and few rounds
 * (for CI: it proves the harness works; its numbers are rough) and prints instead of writing.
 *
 * Options: --quick, --only <figure>[,<figure>...], --out <file>, --profile (runs each figure under
 * `node --cpu-prof` and prints where its CPU time went instead of writing results), --summary
 * (prints only the summary table: what scripts/check-package.sh reports).
 */
import { execFileSync, fork } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, arch, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import type { FigureMessage, FigureReport, Headline } from './lib/figure.js';
import { table } from './lib/figure.js';
import { summarizeProfiles } from './lib/profile.js';
import { format } from './lib/stats.js';

const FIGURES = ['client-overhead', 'verification', 'schema-cost', 'iteration', 'bundle', 'peers', 'sandbox', 'receiver', 'deferred', 'deferred-soak', 'prune', 'memory-inbox'] as const;
const FIGURE_TIMEOUT_MS = 10 * 60_000;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const root = here('..');

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, out: { type: 'string' }, profile: { type: 'boolean', default: false }, summary: { type: 'boolean', default: false } },
});
const only = values.only?.split(',') ?? [...FIGURES];
for (const name of only) {
  if (!(FIGURES as readonly string[]).includes(name)) throw new Error(`unknown figure ${name}; figures: ${FIGURES.join(', ')}`);
}
const complete = !values.quick && !values.profile && !values.summary && values.only === undefined;
const out = values.out ?? (complete ? here('RESULTS.md') : undefined);

if (!existsSync(here('../dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does).');

/** Compiles every figure and child script into bench/.build/, where they run under plain node. */
async function compile(): Promise<void> {
  rmSync(here('.build'), { recursive: true, force: true });
  const entries = ['figures', 'children'].flatMap((folder) =>
    execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', `bench/${folder}/*.ts`], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '')
      .map((file) => `${root}/${file}`),
  );
  await build({
    entryPoints: entries,
    outbase: here('.'),
    outdir: here('.build'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // payorch itself resolves to dist/ through its exports map at run time (what users install);
    // ky and zod from node_modules. Listed explicitly because esbuild would otherwise follow the
    // tsconfig `paths` that point typechecking at src/ and bundle the sources instead.
    packages: 'external',
    external: ['payorch', 'payorch/*'],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
}

async function runFigure(name: string): Promise<FigureReport> {
  // An explicit execArgv: fork() would otherwise pass on tsx's loader flags from this process.
  const execArgv = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${here(`.build/profiles/${name}`)}`] : [];
  // The figure's server processes (bench/lib/processes.ts) are profiled into the same folder.
  const env = values.profile ? { ...process.env, PAYORCH_BENCH_PROFILE_DIR: here(`.build/profiles/${name}`) } : process.env;
  const child = fork(here(`.build/figures/${name}.mjs`), values.quick ? ['--quick'] : [], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const timer = setTimeout(() => child.kill(), FIGURE_TIMEOUT_MS);
  try {
    return await new Promise<FigureReport>((resolve, reject) => {
      let message: FigureMessage | undefined;
      child.on('message', (received: FigureMessage) => {
        message = received;
      });
      child.once('exit', (code, signal) => {
        if (message?.type === 'report') resolve(message.report);
        else reject(new Error(message?.type === 'error' ? message.message : `exited with ${String(code ?? signal)}`));
      });
    });
  } finally {
    clearTimeout(timer);
  }
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(`${root}/node_modules/${pkg}/package.json`, 'utf8')) as { version: string }).version;
}

function machine(): string {
  const cores = cpus();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'package.json'], { cwd: root, encoding: 'utf8' }).trim() !== '';
  return table(
    ['', ''],
    [
      ['CPU', `${cores[0]?.model ?? 'unknown'}, ${cores.length} cores`],
      ['Memory', `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`],
      ['OS', `${platform()} ${release()} ${arch()}`],
      ['Node', `${process.version} (V8 ${process.versions.v8})`],
      ['Packages', `ky ${version('ky')}, zod ${version('zod')}, esbuild ${version('esbuild')}`],
      ['payorch', `commit ${commit}${dirty ? ' with uncommitted changes' : ''}, built dist/`],
      ['Date', new Date().toISOString().replace(/\.\d+Z$/, 'Z')],
      ['Mode', values.quick ? '--quick (few rounds, small sizes: rough numbers)' : 'full'],
    ],
  );
}

function summary(headlines: readonly Headline[]): string {
  return table(
    ['figure', 'payorch', 'baseline (same run)', 'ratio', 'target'],
    headlines.map((line) => [
      line.figure,
      line.payorch,
      line.baseline,
      line.ratio === undefined ? '' : format.ratio(line.ratio),
      line.target === undefined ? '' : `${line.target.text} ${line.target.met ? 'met' : '**not met**'}`,
    ]),
  );
}

const started = performance.now();
await compile();
const sections: string[] = [];
const headlines: Headline[] = [];
let failed = false;
for (const name of only) {
  const figureStart = performance.now();
  process.stderr.write(`bench: ${name} ... `);
  try {
    const report = await runFigure(name);
    sections.push(`## ${report.title}\n\n${report.markdown}`);
    headlines.push(...report.headlines);
    process.stderr.write(`${((performance.now() - figureStart) / 1000).toFixed(1)} s\n`);
    if (values.profile) process.stderr.write(summarizeProfiles(here(`.build/profiles/${name}`)));
  } catch (error) {
    failed = true;
    const message = error instanceof Error ? error.message : String(error);
    sections.push(`## ${name}\n\nFAILED:\n\n\`\`\`\n${message}\n\`\`\`\n`);
    headlines.push({ figure: name, payorch: 'FAILED', baseline: '' });
    process.stderr.write(`FAILED\n${message}\n`);
  }
}
// The findings (what each profile showed, what was changed, before and after) live in one place,
// bench/findings.md: the report links to them rather than copying them.
const findings = complete ? '## Findings and fixes\n\nWhat the profiles showed and what was changed, with before and after figures: [findings.md](findings.md).\n' : '';
// The goals' own scripts (/work/shared/bench) run by hand on the packed package: their section of
// the report is kept as it was written, since this run does not measure it.
const OUTSIDE = '## Judged from outside';
const previous = out !== undefined && existsSync(out) ? readFileSync(out, 'utf8') : '';
const outside = previous.includes(OUTSIDE) ? previous.slice(previous.indexOf(OUTSIDE)).split(/\n(?=## (?!#))/)[0]!.trimEnd() + '\n' : '';
const document = [
  '# payorch benchmarks',
  '',
  `Generated by \`npm run bench${values.quick ? ' -- --quick' : ''}\` (bench/main.ts) in ${((performance.now() - started) / 1000).toFixed(0)} s. Every payorch figure is compared with its baseline measured in the same run, on the same machine. Numbers are medians of several runs; lower ratios are better.`,
  '',
  '## Machine',
  '',
  machine(),
  '## Summary',
  '',
  summary(headlines),
  ...sections,
  outside,
  findings,
].join('\n');
if (values.summary) console.log(summary(headlines));
else if (out === undefined) console.log(document);
else {
  writeFileSync(out, document);
  process.stderr.write(`bench: wrote ${out}\n`);
}
if (failed) process.exitCode = 1;
