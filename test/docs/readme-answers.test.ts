import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The HTTP statuses named in `text`, in order of first appearance. */
const statuses = (text: string) => [...new Set(text.match(/\b[1-5]\d\d\b/g) ?? [])].map(Number).sort((a, b) => a - b);

test("the README's list of a receiver's answers names every status of the receiver's answer table", () => {
  // The answer type is the table: every answer the receive path builds is one of its statuses.
  const union = /readonly status: ([\d |]+);/.exec(read('src/webhooks/receiver/answer.ts'))?.[1];
  expect(union).toBeDefined();
  const readme = read('README.md');
  const list = /It answers:\n\n((?:- .*\n)+)/.exec(readme)?.[1];
  expect(list, 'the README\'s "It answers:" list').toBeDefined();
  expect(statuses(list ?? '')).toEqual(statuses(union ?? ''));
});
