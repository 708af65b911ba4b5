import { PayorchError } from '../errors/error.js';

/**
 * A part of payorch imported on a client's first call rather than with payorch (an API's endpoint
 * tables with zod, the transport's call engine with ky's loader): each was work every cold start
 * paid (bench/findings.md). A failed import fails the call with a PayorchError that says so
 * (nothing was sent), and the next call tries again.
 * @internal
 */
export class LazyModule<M> {
  readonly #what: string;
  readonly #import: () => Promise<M>;
  #loaded: M | undefined;
  #loading: Promise<M> | undefined;

  /** @param what what the module is, as the error names it (`its endpoint tables`) */
  constructor(what: string, load: () => Promise<M>) {
    this.#what = what;
    this.#import = load;
  }

  /** The module, once loaded: read at once, so a call after the first waits for no turn of the event loop. */
  get loaded(): M | undefined {
    return this.#loaded;
  }

  load(): Promise<M> {
    if (this.#loaded !== undefined) return Promise.resolve(this.#loaded);
    this.#loading ??= this.#import().then(
      (module) => (this.#loaded = module),
      (cause: unknown) => {
        this.#loading = undefined;
        throw new PayorchError(`payorch could not load ${this.#what} (a chunk of the package, imported on the first call): ${cause instanceof Error ? cause.message : String(cause)}`, { cause, outcome: 'not_sent' });
      },
    );
    return this.#loading;
  }
}
