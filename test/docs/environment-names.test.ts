import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { TOOLS } from '../../scripts/test-servers.mjs';
import { ENVIRONMENT_NAMES, exampleEnvironment } from '../../src/tools/cli/environment.js';
import { createSandbox } from '../../src/tools/sandbox/index.js';

const root = join(import.meta.dirname, '../..');
/** The one set of names: code imports them; README, guides, examples and help texts write them out. */
const CREDENTIALS: readonly string[] = Object.values(ENVIRONMENT_NAMES);
/** Where the example webhook receiver listens: settings of the example, not credentials. */
const EXAMPLE_SETTINGS = ['PAYORCH_WEBHOOK_HOST', 'PAYORCH_WEBHOOK_PORT'];
/** Settings of payorch's own test suite (the servers it starts), named in the contributor docs. */
const TEST_SETTINGS: readonly string[] = Object.values(TOOLS).map((tool) => tool.variable);
/** What the SDK reads itself where the runtime has environment variables: the log level. */
const SDK_SETTINGS = ['PAYORCH_LOG'];

function files(dir: string, extensions: readonly string[]): string[] {
  return readdirSync(join(root, dir), { recursive: true })
    .map(String)
    .filter((file) => extensions.some((extension) => file.endsWith(extension)))
    .map((file) => join(dir, file));
}

describe('environment variable names', () => {
  test('README, docs, examples and the prose of the sources use only these names', () => {
    const scanned = ['README.md', ...files('docs', ['.md']), ...files('examples', ['.ts']), ...files('src', ['.ts'])];
    const strays = scanned.flatMap((file) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/\bPAYORCH_[A-Z_]+\*?/g)]
        .map(([name]) => name)
        // `PAYORCH_DEALER_*` names the pair in prose.
        .filter((name) => !name.endsWith('_*'))
        .filter((name) => ![...CREDENTIALS, ...EXAMPLE_SETTINGS, ...TEST_SETTINGS, ...SDK_SETTINGS].includes(name))
        .map((name) => `${file}: ${name}`),
    );
    // A new variable is read through ENVIRONMENT_NAMES (src/tools/cli/environment.ts), or is one of the settings above.
    expect(strays, 'PAYORCH_* names that are not the contract: fix the spelling, or add the name to ENVIRONMENT_NAMES or to a list of this file').toEqual([]);
  });

  test('the sandbox prints exactly the contract names, with its own values', () => {
    const sandbox = createSandbox();
    const environment = exampleEnvironment('http://127.0.0.1:4010', sandbox.accounts);
    expect(Object.keys(environment)).toEqual(CREDENTIALS);
    expect(environment.PAYORCH_SITES_KEY).toBe(sandbox.accounts.provider.key);
    expect(environment.PAYORCH_PROVIDER_SECRET_KEY).toBe(sandbox.accounts.provider.secretKey);
  });

  test('the README quick start reads the names the sandbox prints: the keys by the client itself, the site key in code', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('```ts'), readme.indexOf('```', readme.indexOf('```ts') + 5));
    expect(quickStart).toContain('process.env.PAYORCH_CREDENTIAL_KEY');
    for (const name of ['PAYORCH_PROVIDER_API_KEY', 'PAYORCH_PROVIDER_SECRET_KEY']) expect(quickStart).toContain(name);
  });
});
