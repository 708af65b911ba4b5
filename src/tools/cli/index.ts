#!/usr/bin/env node
// The `payorch` executable: main() with the process's own streams, its version and exit code.
import { readFileSync } from 'node:fs';
import type { Io } from './io.js';
import { main } from './main.js';
import { unsupportedNode } from './node-line.js';

// dist/cli.js sits one level below the package root in the repository and when installed.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown; engines?: { node?: unknown } };
const version = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
const unsupportedRuntime = typeof manifest.engines?.node === 'string' ? unsupportedNode(process.versions, manifest.engines.node) : undefined;

// A reader that stopped reading (`payorch openapi | head -1`) is not a failure: the output it
// wanted was written. Without a listener, EPIPE is an uncaught error with a stack and exit 1.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}

const io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, ...(unsupportedRuntime === undefined ? {} : { unsupportedRuntime }) };
main(process.argv.slice(2), io, version).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // main() reports every failure itself; this is only a last resort, without a bundle stack.
    process.stderr.write(`payorch: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
