/** One entry point of the package, as package.json `exports` lists it. */
export interface Entry {
  /** What a user imports: `payorch`, `payorch/postgres`. */
  readonly name: string;
  /** Its key in `exports`: `.`, `./postgres`. */
  readonly subpath: string;
  /** Its path under dist/ and src/, without extension: `inboxes/postgres/index`. */
  readonly out: string;
  /** `src/<out>.ts`. */
  readonly source: string;
  /** `dist/<out>.js`, `.cjs`, `.d.ts`, `.d.cts`: relative to the package root. */
  readonly esm: string;
  readonly cjs: string;
  readonly types: string;
  readonly ctypes: string;
}

export declare const ENTRIES: readonly Entry[];
export declare function entry(name: string): Entry;
