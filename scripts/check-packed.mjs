// Checks the unpacked `npm pack` tarball (its package/ folder, given as the argument) as the
// registry would show and install it: nothing runs at install time, the licence and the links
// of the package page are there, and every shipped file is used. Called by check-package.sh.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const packed = process.argv[2];
const repo = join(import.meta.dirname, '..');
const REPOSITORY = 'https://github.com/payorch/payorch';
const problems = [];
const manifest = JSON.parse(readFileSync(join(packed, 'package.json'), 'utf8'));

// 1. Nothing runs on `npm install payorch`.
for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
  if (manifest.scripts?.[script] !== undefined) problems.push(`package.json has a "${script}" script, which runs in every project that installs payorch`);
}

// 2. Licence and the package page's metadata.
if (manifest.license !== 'MIT') problems.push(`license is ${manifest.license}, not MIT`);
if (!existsSync(join(packed, 'LICENSE')) || !readFileSync(join(packed, 'LICENSE'), 'utf8').startsWith('MIT License')) problems.push('LICENSE (MIT) is not in the package');
if (manifest.repository?.url !== `git+${REPOSITORY}.git`) problems.push(`repository.url is ${manifest.repository?.url}`);
if (!manifest.homepage?.startsWith(REPOSITORY)) problems.push(`homepage is ${manifest.homepage}`);
if (!manifest.bugs?.url?.startsWith(REPOSITORY)) problems.push(`bugs.url is ${manifest.bugs?.url}`);
if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) problems.push('keywords are missing');

// 3. Every README link works on the package page: absolute, and a repository link names a file
// or folder that exists in the repository; a relative link only to a file that ships.
const readme = readFileSync(join(packed, 'README.md'), 'utf8');
const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target);
for (const link of links) {
  if (link.startsWith('#')) continue;
  if (link.startsWith(`${REPOSITORY}/`)) {
    const path = link.slice(REPOSITORY.length + 1).replace(/^(blob|tree)\/main\//, '').replace(/#.*$/, '');
    if (!/^(blob|tree)\/main\//.test(link.slice(REPOSITORY.length + 1))) problems.push(`README link ${link} does not point at a file on main`);
    else if (!existsSync(join(repo, path))) problems.push(`README link ${link}: ${path} is not in the repository`);
  } else if (!/^https?:\/\//.test(link) && !existsSync(join(packed, link.replace(/#.*$/, '')))) {
    problems.push(`README link ${link} is relative and its target does not ship: it is broken on the package page`);
  }
}
if (links.length === 0) problems.push('the README has no links: did the pattern break?');

// 4. No unused build output: every file under dist/ is an entry of exports, imports or bin, or
// is reached from one through a relative import. No source maps (docs/decisions.md).
const files = readdirSync(join(packed, 'dist'), { recursive: true })
  .map((file) => join('dist', String(file)))
  .filter((file) => /\.[cm]?[jt]s$/.test(file));
const targets = (value) => (typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(targets) : []);
const entries = [...targets(manifest.exports), ...targets(manifest.imports), ...targets(manifest.bin)].map((target) => join(target)).filter((target) => target.startsWith('dist'));
const reached = new Set();
const queue = [...entries];
while (queue.length > 0) {
  const file = queue.pop();
  if (reached.has(file) || !existsSync(join(packed, file))) continue;
  reached.add(file);
  for (const [, specifier] of readFileSync(join(packed, file), 'utf8').matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = join(dirname(file), specifier);
    // A .d.ts imports its sibling declarations by their .js name.
    for (const candidate of [target, target.replace(/\.js$/, '.d.ts'), target.replace(/\.cjs$/, '.d.cts')]) queue.push(candidate);
  }
}
for (const file of files) if (!reached.has(file)) problems.push(`${file} ships but nothing uses it`);
for (const file of readdirSync(join(packed, 'dist'), { recursive: true }).map(String)) {
  if (file.endsWith('.map')) problems.push(`dist/${file}: source maps do not ship`);
}
if (existsSync(join(packed, 'dist/cli.cjs'))) problems.push('dist/cli.cjs ships: the CLI is ESM only');

if (problems.length > 0) {
  console.error(problems.map((problem) => `  FAIL  ${problem}`).join('\n'));
  process.exit(1);
}
console.log(`  ok    manifest runs nothing at install; MIT LICENSE ships; repository, homepage, bugs, keywords set`);
console.log(`  ok    ${links.length} README links work on the package page`);
console.log(`  ok    ${files.length} files under dist/, each an entry or reached from one; no source maps, no dist/cli.cjs (${relative(repo, packed) || packed})`);
