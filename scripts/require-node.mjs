// Fails at once, with the fix, when the Node running the project's scripts is older than the floor
// in package.json `engines` (vitest 5, tsup 9 and msw 3 die later with errors that name nothing
// useful, such as "Map.groupBy is not a function"). npm scripts and `npx` put node_modules/.bin
// first on PATH, where the `node` devDependency puts a supported Node; a tool run straight from
// node_modules/.bin, or an install made with --ignore-scripts, falls back to the machine's Node.
// Written for any Node: it must run on the one it refuses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const floor = /(\d+)\.(\d+)/.exec(manifest.engines.node);
const [major, minor] = process.versions.node.split('.').map(Number);
const [floorMajor, floorMinor] = [Number(floor[1]), Number(floor[2])];

if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
  const bundled = manifest.devDependencies.node;
  console.error(
    [
      `payorch's scripts need Node ${floorMajor}.${floorMinor} or later; this is Node ${process.versions.node} (${process.execPath}).`,
      `The project brings its own (the "node" devDependency, ${bundled}) on the PATH of npm scripts: run them through npm`,
      '(npm test, npm run build, npx vitest …), not from node_modules/.bin. If it is missing, the install skipped',
      'install scripts: run `npm rebuild node` (or `npm ci` without --ignore-scripts). Or put Node 22.12+ first on PATH.',
    ].join('\n'),
  );
  process.exit(1);
}
