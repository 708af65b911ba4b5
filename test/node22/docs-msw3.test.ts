import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http } from 'msw';
import { setupServer } from 'msw/node';
import ts from 'typescript';
import { expect, test, vi } from 'vitest';
import { ProviderClient } from '../../src/index.js';
import { diagnosticsOf } from '../helpers/in-memory-program.js';

/*
 * The guides' msw blocks are written for msw 3, the current major (fenced ```ts msw3): the
 * repository's own suite runs msw 2 on Node 20, so they compile here, against this lane's msw 3.
 */
const root = join(import.meta.dirname, '../..');
const guides = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const blocks = guides.flatMap((file) => [...readFileSync(join(root, file), 'utf8').matchAll(/^```ts msw3\s*$([\s\S]*?)^```\s*$/gm)].map((match, index) => ({ file, index, code: match[1] ?? '' })));

test("every msw block of the guides type-checks on msw 3 (msw's own types, this lane's msw)", () => {
  expect(blocks.length).toBeGreaterThan(0);
  // Inside this folder, so that 'msw' resolves to the lane's msw 3.
  const files = new Map(blocks.map((block) => [join(import.meta.dirname, `__msw3_${block.index}_${block.file.replace(/\W/g, '_')}__.ts`), `${block.code}\nexport {};\n`]));
  const problems = diagnosticsOf(root, files).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  expect(problems).toEqual([]);
}, 60_000);

test("onUnhandledFrame: 'error', as the guide sets it, fails a request no handler answers on msw 3", async () => {
  const server = setupServer(http.get('https://pay.example.test/known', () => Response.json({})));
  // msw 3 ignores msw 2's onUnhandledRequest: it would only warn, and the request would go out.
  const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  server.listen({ onUnhandledFrame: 'error' });
  try {
    const client = new ProviderClient({ baseUrl: 'https://unhandled.example.test', apiKey: 'a', secretKey: 's', maxRetries: 0 });
    await expect(client.welcome()).rejects.toThrow();
    expect(printed.mock.calls.flat().join(' ')).toContain('intercepted a request without a matching request handler');
  } finally {
    server.close();
  }
});
