import { expectTypeOf, test } from 'vitest';
import { declareOptions } from '../../src/core/option-checks.js';
import type { OptionDeclaration, OptionName } from '../../src/core/option-checks.js';
import type { MemoryInboxOptions } from '../../src/inboxes/memory.js';
import type { SandboxOptions } from '../../src/tools/sandbox/options.js';
import { MEMORY_INBOX_OPTIONS } from '../../src/inboxes/memory.js';
import { VERIFY_OPTIONS } from '../../src/webhooks/verify.js';
import { declared } from '../../src/tools/cli/flags.js';

// Declarations are held to their options interface by the compiler: a test that parses the
// sources is needed only for what it cannot see (defaults written in JSDoc, docs and CLI help).

const ranged = { type: 'number', min: 1, max: 10, integer: true } as const;

test('a declaration named after an option of the interface compiles', () => {
  const declarations = declareOptions<MemoryInboxOptions>()([
    { name: 'retentionSeconds', rule: ranged },
    { name: 'maxKeys', rule: ranged },
    { name: 'now', rule: { type: 'function' } },
  ]);
  expectTypeOf(declarations).toEqualTypeOf<readonly OptionDeclaration<'retentionSeconds' | 'maxKeys' | 'now'>[]>();
  expectTypeOf(MEMORY_INBOX_OPTIONS).toEqualTypeOf<readonly OptionDeclaration<'retentionSeconds' | 'maxKeys' | 'now'>[]>();
});

test('a misspelt declaration does not compile', () => {
  declareOptions<MemoryInboxOptions>()([
    // @ts-expect-error: MemoryInboxOptions has no retentionSecond
    { name: 'retentionSecond', rule: ranged },
    { name: 'maxKeys', rule: ranged },
    { name: 'now', rule: { type: 'function' } },
  ]);
});

test('an option left undeclared does not compile, unless the second argument says why', () => {
  // @ts-expect-error: `now` is an option of MemoryInboxOptions that nothing declares
  declareOptions<MemoryInboxOptions>()([
    { name: 'retentionSeconds', rule: ranged },
    { name: 'maxKeys', rule: ranged },
  ]);
  declareOptions<MemoryInboxOptions>()([{ name: 'retentionSeconds', rule: ranged }, { name: 'maxKeys', rule: ranged }], { now: 'any clock will do' });
  declareOptions<MemoryInboxOptions>()(
    [
      { name: 'retentionSeconds', rule: ranged },
      { name: 'maxKeys', rule: ranged },
      { name: 'now', rule: { type: 'function' } },
    ],
    // @ts-expect-error: every option is declared, so there is nothing to explain
    { now: 'declared already' },
  );
});

test('a nested option is named by its dotted path, and only by an option of the nested interface', () => {
  expectTypeOf<'callbackRetry.attempts'>().toExtend<OptionName<SandboxOptions>>();
  expectTypeOf<'callbackRetry.attempt'>().not.toExtend<OptionName<SandboxOptions>>();
  // A function is an option, not an object of options.
  expectTypeOf<'now.call'>().not.toExtend<OptionName<MemoryInboxOptions>>();
});

test('the CLI reads a flag’s range only from an option that is declared', () => {
  expectTypeOf(declared(VERIFY_OPTIONS, 'toleranceSeconds')).toEqualTypeOf<OptionDeclaration<(typeof VERIFY_OPTIONS)[number]['name']>>();
  // @ts-expect-error: verifyCallback declares no toleranceSecond
  declared(VERIFY_OPTIONS, 'toleranceSecond');
});
