import { RequestValidationError } from '../../errors/error.js';
import { eventNamesOf, isCallbackEventName } from '../events.js';
import type { CallbackEventName, CallbackOfEvent } from '../events.js';
import type { AppliedCallback } from '../status-read.js';

/*
 * The route step: the handlers `receiver.on` registered, and which of them a callback reaches,
 * in order: `'<kind>.<status>'` ones, then `'<kind>'`, then `'*'`, each in the order added.
 */

/**
 * A handler of one event: applies the callback, or throws to have it delivered again. It gets
 * the inbox's context: with the PostgreSQL inbox, `context.client` is the open transaction.
 */
export type CallbackHandler<E extends CallbackEventName, TContext> = (callback: CallbackOfEvent<E>, context: TContext) => void | Promise<void>;

type Handler<TContext> = (callback: AppliedCallback, context: TContext) => void | Promise<void>;

/** One handler a callback reaches, named by its event and place (`deposit#0`) for an inbox that keeps progress. */
export interface RouteStep<TContext> {
  readonly step: string;
  readonly handler: Handler<TContext>;
}

/** The handlers of one receiver. */
export interface HandlerRoutes<TContext> {
  /**
   * Registers a handler (`receiver.on`), checked at run time for callers without types.
   * @throws {RequestValidationError} (rule `invalid_argument`) for an event name or a handler that is not one
   */
  readonly on: (event: string, handler: (callback: never, context: TContext) => void | Promise<void>) => void;
  /** The steps a callback reaches, in the order they run; none when no handler takes it. */
  readonly routeOf: (callback: AppliedCallback) => readonly RouteStep<TContext>[];
}

const WHERE = 'receiver.on';

function invalidArgument(field: 'event' | 'handler', message: string): never {
  throw new RequestValidationError(WHERE, [{ field, rule: 'invalid_argument', message }]);
}

/** An empty set of handlers; routes are worked out on the first callback of each kind and status. */
export function handlerRoutes<TContext>(): HandlerRoutes<TContext> {
  const handlers = new Map<string, Handler<TContext>[]>();
  // The steps of each kind and status, worked out on its first callback; `on` clears them.
  const routes = new Map<string, readonly RouteStep<TContext>[]>();
  return {
    on: (event, handler) => {
      if (!isCallbackEventName(event)) {
        invalidArgument('event', `${JSON.stringify(event)} is not an event; use '*', a kind ('deposit'), or a kind and a status the spec lists ('deposit.completed')`);
      }
      if (typeof handler !== 'function') invalidArgument('handler', `must be a function for '${event}'; got ${typeof handler}`);
      const list = handlers.get(event) ?? [];
      // eventNamesOf delivers to this name only callbacks of its kind and status.
      list.push(handler as Handler<TContext>);
      handlers.set(event, list);
      routes.clear();
    },
    routeOf: (callback) => {
      const id = `${callback.kind}.${callback.payload.status}`;
      let found = routes.get(id);
      if (found === undefined) {
        found = eventNamesOf(callback).flatMap((name) => (handlers.get(name) ?? []).map((handler, index) => ({ step: `${name}#${index}`, handler })));
        // Statuses are signed words, but an unknown kind may bring any: the cache stays small.
        if (routes.size >= 256) routes.clear();
        routes.set(id, found);
      }
      return found;
    },
  };
}
