import { environmentVariable } from './environment.js';
import { callListener } from './listener.js';
import type { LogFunction, Logger } from './observability.js';

/*
 * How much payorch writes, and where, when nobody wrote code for it: the `logLevel` option, else
 * the PAYORCH_LOG environment variable where there is one (Node, Bun, Deno; a Worker has no
 * `process.env`: use the option), else `warn`, on the console unless a `logger` is given.
 */

/** How much payorch logs: `off`, or the least severe level written (`debug` writes everything). */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

const RANK: Readonly<Record<LogLevel, number>> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** The levels, for the option check and the docs. */
export const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/** The level used when neither `logLevel` nor PAYORCH_LOG says one. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'warn';

function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** PAYORCH_LOG, where the runtime has environment variables; `undefined` where not, or when it names no level. */
function environmentLevel(): LogLevel | undefined {
  const value = environmentVariable('PAYORCH_LOG')?.trim().toLowerCase();
  return isLogLevel(value) ? value : undefined;
}

/** The level in force: the option, else PAYORCH_LOG, else `warn`. */
export function logLevelOf(option: LogLevel | undefined): LogLevel {
  return option ?? environmentLevel() ?? DEFAULT_LOG_LEVEL;
}

function noop(): void {
  // A level below the one in force: nothing is written, and the caller built nothing for it.
}

/**
 * The console as a payorch logger: the message alone, which names the operation, method, path,
 * status and duration; the fields are for structured loggers.
 */
const consoleLogger: Logger = {
  debug: (_fields, message) => {
    console.debug(message);
  },
  info: (_fields, message) => {
    console.info(message);
  },
  warn: (_fields, message) => {
    console.warn(message);
  },
  error: (_fields, message) => {
    console.error(message);
  },
};

/** A logger that writes the levels `level` lets through and drops the rest, and says which it writes. */
export interface LevelledLogger extends Logger {
  /** The level in force. */
  readonly level: LogLevel;
  /** Whether `level` is written: checked before building the fields of a line. */
  enabled(level: Exclude<LogLevel, 'off'>): boolean;
  /** Writes at `warn` unless the level is `off`: for what must not go unseen (a receiver refusing genuine-looking callbacks). */
  warnAlways: LogFunction;
}

/** `logger` (or the console) filtered at `option` (or PAYORCH_LOG, or `warn`). */
export function levelledLogger(logger: Logger | undefined, option: LogLevel | undefined): LevelledLogger {
  const level = logLevelOf(option);
  const target = logger ?? consoleLogger;
  const rank = RANK[level];
  // A logger that throws or rejects is the user's to notice: what payorch was doing goes on.
  const pick = (name: Exclude<LogLevel, 'off'>): LogFunction =>
    RANK[name] <= rank
      ? (fields, message) => {
          callListener(target[name], [fields, message], noop, target);
        }
      : noop;
  const warnAlways: LogFunction =
    level === 'off'
      ? noop
      : (fields, message) => {
          callListener(target.warn, [fields, message], noop, target);
        };
  return { level, enabled: (name) => RANK[name] <= rank, debug: pick('debug'), info: pick('info'), warn: pick('warn'), error: pick('error'), warnAlways };
}

/** The option declaration of `logLevel`, shared by the clients and the receiver. */
export const LOG_LEVEL_OPTION = { name: 'logLevel', rule: { type: 'oneOf', values: LOG_LEVELS } } as const;
