// Files that stub globals or the environment, or fake timers, share their worker's module graph
// when they undo it (vitest.config.ts): undone here too at each file's end, so that one whose test
// failed before its own undo leaves nothing to the files after it.
import { afterAll, vi } from 'vitest';

afterAll(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});
