import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { DealerClient } from '../../src/index.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';

// A guide's wallet id must work when its snippet is pasted against `npx payorch sandbox` (default
// seed): an id the sandbox does not have answers WALLET_NOT_ASSIGNED, the first thing a newcomer sees.
const root = join(import.meta.dirname, '../..');
const guides = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name))];

test('every wallet id the guides use is a wallet of the default sandbox', async () => {
  const sandbox = createSandbox();
  const dealer = new DealerClient({ baseUrl: 'https://sandbox.payorch.test', ...sandbox.accounts.dealer, fetch: sandbox.fetch });
  const { eibans } = await dealer.eibans.list();
  const wallets = eibans.map((eiban) => eiban.wallet_id);
  const used = guides.flatMap((file) => [...readFileSync(join(root, file), 'utf8').matchAll(/wallet_id: '([^']+)'/g)].map(([, id]) => `${file}: ${id}`));
  expect(used.length).toBeGreaterThan(0);
  expect(used.filter((entry) => !wallets.some((wallet) => entry.endsWith(`: ${wallet}`))), `wallet ids the default sandbox does not have (it has ${wallets.join(', ')}): use one of those`).toEqual([]);
});
