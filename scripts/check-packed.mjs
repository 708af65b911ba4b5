// Checks the unpacked `npm pack` tarball (its package/ folder, given as the argument) as the
// registry would show and install it: nothing runs at install time, the licence is there, every
// link of the shipped guides resolves inside the package, and every shipped file is used. Called by check-package.sh.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const packed = process.argv[2];
const repo = join(import.meta.dirname, '..');
const REPOSITORY = 'https://github.com/payorch/payorch';
const RAW = 'https://raw.githubusercontent.com/payorch/payorch/main/';
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

// 3. Every link of every shipped markdown file (README, CHANGELOG, docs/*.md) works where the
// package is read: in node_modules, offline, at the installed version. A relative link (images
// included) must name a file or folder inside the tarball; an absolute repository link must name
// something in the repository, and never a file that ships (link that relatively, so that it
// matches the installed version); an image left out of the package is shown from the
// repository's raw files, and must be there. Every shipped file outside dist/ must be reached from README.md
// through links (a folder link reaches what is in it) or an example's relative imports.
const shipped = readdirSync(packed, { recursive: true }).map(String).filter((file) => !file.startsWith('node_modules'));
const markdown = shipped.filter((file) => file.endsWith('.md'));
const reachedFromReadme = new Set();
const linkCount = { all: 0 };
const linksOf = (file) => [...readFileSync(join(packed, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '').matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map(([, target]) => target);
for (const file of markdown) {
  for (const link of linksOf(file)) {
    linkCount.all++;
    if (link.startsWith('#') || link.startsWith('mailto:')) continue;
    if (link.startsWith(`${REPOSITORY}/`)) {
      const rest = link.slice(REPOSITORY.length + 1);
      const path = rest.replace(/^(blob|tree)\/main\//, '').replace(/#.*$/, '');
      if (!/^(blob|tree)\/main\//.test(rest)) problems.push(`${file}: link ${link} does not point at a file on main`);
      else if (!existsSync(join(repo, path))) problems.push(`${file}: link ${link}: ${path} is not in the repository`);
      else if (existsSync(join(packed, path))) problems.push(`${file}: link ${link} points at GitHub, but ${path} ships: link it relatively so it matches the installed version`);
    } else if (link.startsWith(RAW)) {
      // Images the package leaves out (screenshots), shown from the repository.
      const path = link.slice(RAW.length);
      if (!existsSync(join(repo, path))) problems.push(`${file}: image ${link}: ${path} is not in the repository`);
      else if (existsSync(join(packed, path))) problems.push(`${file}: image ${link} points at GitHub, but ${path} ships: link it relatively`);
    } else if (!/^[a-z][a-z0-9+.-]*:/i.test(link)) {
      const target = join(dirname(file), decodeURIComponent(link.replace(/#.*$/, '')));
      if (target.startsWith('..')) problems.push(`${file}: link ${link} leaves the package`);
      else if (!existsSync(join(packed, target))) problems.push(`${file}: link ${link} is relative and ${target} does not ship: it is broken in node_modules`);
    }
  }
}
const linkQueue = ['README.md'];
while (linkQueue.length > 0) {
  const file = linkQueue.pop();
  if (reachedFromReadme.has(file) || !existsSync(join(packed, file))) continue;
  reachedFromReadme.add(file);
  if (file.endsWith('/')) {
    linkQueue.push(...shipped.filter((each) => each.startsWith(file) && !each.endsWith('/')));
  } else if (file.endsWith('.md')) {
    for (const link of linksOf(file)) {
      if (/^[a-z][a-z0-9+.-]*:|^#/i.test(link)) continue;
      const target = join(dirname(file), decodeURIComponent(link.replace(/#.*$/, '')));
      linkQueue.push(link.replace(/#.*$/, '').endsWith('/') ? `${target}/` : target);
    }
  } else if (/\.[cm]?ts$/.test(file)) {
    for (const [, specifier] of readFileSync(join(packed, file), 'utf8').matchAll(/from\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      linkQueue.push(join(dirname(file), specifier).replace(/\.js$/, '.ts'));
    }
  }
}
for (const file of shipped) {
  if (file.startsWith('dist') || ['package.json', 'LICENSE', 'README.md'].includes(file)) continue;
  if (statSync(join(packed, file)).isDirectory()) continue;
  if (!reachedFromReadme.has(file)) problems.push(`${file} ships, but no link from README.md (or a page it links) reaches it`);
}
for (const file of shipped) {
  // Read by maintainers, not from node_modules: screenshots are linked from the repository.
  if (file === 'docs/decisions.md' || file.endsWith('.png')) problems.push(`${file} ships: it is for the repository, not for users' node_modules`);
}
if (linkCount.all === 0) problems.push('the shipped markdown has no links: did the pattern break?');

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
console.log(`  ok    ${linkCount.all} links in ${markdown.length} shipped markdown files resolve inside the package or in the repository; every file outside dist/ is reached from README.md`);
console.log(`  ok    ${files.length} files under dist/, each an entry or reached from one; no source maps, no dist/cli.cjs (${relative(repo, packed) || packed})`);
