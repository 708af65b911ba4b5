import { PayorchError } from '../errors/error.js';
import type { CallOutcome } from '../errors/error.js';
import { outcomeSentence } from '../errors/call-message.js';

/**
 * A part of payorch imported on first use rather than with payorch (an API's endpoint tables with
 * zod, the transport's call engine, ky, a receiver's receive path): each was work
 * every cold start paid (bench/findings.md). A failed import fails what needed it with a
 * PayorchError that says so, and the next use tries again.
 * @internal
 */
export class LazyModule<M> {
  readonly #what: string;
  readonly #import: () => Promise<M>;
  readonly #outcome: CallOutcome;
  #loaded: M | undefined;
  #loading: Promise<M> | undefined;

  /**
   * @param what what the module is and when it is imported, as the error names it
   * @param outcome the failure's outcome: `not_sent` for a call, which sends nothing without it
   */
  constructor(what: string, load: () => Promise<M>, outcome: CallOutcome) {
    this.#what = what;
    this.#import = load;
    this.#outcome = outcome;
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
        // A call's failure says whether anything was sent, as every call's error does.
        const sent = this.#outcome === 'not_sent' ? ` ${outcomeSentence('not_sent', {})}` : '';
        const why = (cause instanceof Error ? cause.message : String(cause)).replace(/\.$/, '');
        throw new PayorchError(`payorch could not load ${this.#what}: ${why}.${sent}`, { cause, outcome: this.#outcome });
      },
    );
    return this.#loading;
  }
}
