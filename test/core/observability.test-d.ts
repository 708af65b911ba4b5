import { expectTypeOf, test } from 'vitest';
import type { Logger } from '../../src/index.js';

// The overloads of pino 9's LogFn, copied so that the test needs no pino install.
interface PinoLogFn {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- pino's own signature
  <T extends object>(obj: T, msg?: string, ...args: unknown[]): void;
  (obj: unknown, msg?: string, ...args: unknown[]): void;
  (msg: string, ...args: unknown[]): void;
}
interface PinoLike {
  level: string;
  debug: PinoLogFn;
  info: PinoLogFn;
  warn: PinoLogFn;
  error: PinoLogFn;
  fatal: PinoLogFn;
  child(bindings: Record<string, unknown>): PinoLike;
}

test('console and a pino logger are both a Logger', () => {
  expectTypeOf(console).toExtend<Logger>();
  expectTypeOf<PinoLike>().toExtend<Logger>();
});

test('an object without the four levels is not', () => {
  expectTypeOf<{ log: (message: string) => void }>().not.toExtend<Logger>();
  expectTypeOf<{ debug: (message: string) => void; info: (message: string) => void; warn: (message: string) => void; error: (message: string) => void }>().not.toExtend<Logger>();
});
