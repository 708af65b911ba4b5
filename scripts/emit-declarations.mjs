// The first step of `npm run build`: each source file's declarations, emitted by TypeScript 7 into
// .build/declarations, which tsup's declaration build then bundles per entry
// (tsup.config.ts). tsup's own emit runs TypeScript 6 through its compiler API and took most of
// the build's time; TypeScript 7's native compiler emits the same files in a fraction of it.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DECLARATIONS = join(root, '.build', 'declarations');
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript7/package.json')), 'bin', 'tsc');

// A source file deleted or moved must not leave its old declarations behind.
rmSync(DECLARATIONS, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(root, 'scripts', 'declarations.tsconfig.json')], { cwd: root, stdio: 'inherit' });
