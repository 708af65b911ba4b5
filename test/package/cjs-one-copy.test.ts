import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot as root, requireBuilt } from '../helpers/dist.js';
import { entry } from '../../scripts/entries.mjs';

// A CommonJS app that requires `payorch` and `payorch/sandbox` must run one SDK: the sandbox's
// errors are then the app's classes. When each CommonJS entry inlined its own copy, a SandboxError
// was not `instanceof` the PayorchError of `payorch`. scripts/check-package.sh checks the same from
// the packed tarball.
requireBuilt(entry('payorch').cjs, entry('payorch/sandbox').cjs);

interface Main {
  readonly PayorchError: abstract new (...args: never[]) => Error;
  readonly ProviderClient: unknown;
}
interface SandboxEntry {
  readonly SandboxError: abstract new (...args: never[]) => Error;
  readonly createSandbox: () => { settle(id: string, status: string): Promise<unknown> };
}

test('the CommonJS payorch/sandbox throws errors that are instances of the CommonJS payorch’s classes', async () => {
  const require = createRequire(import.meta.url);
  const main = require(join(root, entry('payorch').cjs)) as Main;
  const sandbox = require(join(root, entry('payorch/sandbox').cjs)) as SandboxEntry;
  const error: unknown = await sandbox.createSandbox().settle('MAN-none0001-1795435499', 'completed').catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(sandbox.SandboxError);
  expect(error).toBeInstanceOf(main.PayorchError);
});
