/**
 * payorch as the bench sees it: the built package (`dist/`, through the package's own exports map),
 * exactly what users install. Areas that are still being built on other branches are looked up at
 * run time, so that a figure whose code is missing says "not available yet" instead of failing.
 */
import * as payorch from 'payorch';

export { payorch };

/** `payorch/sandbox` as the bench uses it (issue 5). */
export interface SandboxModuleLike {
  createSandbox(options?: Record<string, unknown>): {
    readonly accounts: {
      readonly provider: { apiKey: string; secretKey: string; key: string; sites: readonly { id: number; name: string; credentialKey: string }[] };
      readonly dealer: { apiKey: string; secretKey: string };
    };
    listen(options?: { port?: number; host?: string }): Promise<{ url: string; close(): Promise<void> | void }>;
  };
}

/** An export of `payorch` that may not exist yet on this branch. */
export const optionalExport = (name: string): unknown => (payorch as Readonly<Record<string, unknown>>)[name];


/** `payorch/sandbox`, or undefined while the package does not export it yet. */
export async function loadSandbox(): Promise<SandboxModuleLike | undefined> {
  // A variable specifier: the subpath does not exist until the sandbox branch lands.
  const specifier = 'payorch/sandbox';
  try {
    return (await import(specifier)) as SandboxModuleLike;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' || (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
