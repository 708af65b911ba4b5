// The inbox's transaction is the handlers' to use and the inbox's alone to end: the key it claimed
// and the handlers' changes commit together or not at all. A handler's own COMMIT or ROLLBACK on
// the client (an older helper's BEGIN … COMMIT, ROLLBACK on error) ended it, and what the handler
// wrote after that committed on its own, once per delivery, while the inbox answered 500 for a
// transaction it could no longer commit. So while the handlers hold the client, a statement that
// would end the transaction is refused before it reaches PostgreSQL, and the callback is then not
// applied at all (src/inboxes/postgres/index.ts): a SAVEPOINT is a handler's own transaction.
import { InboxError } from '../../errors/error.js';

/**
 * The first statement of `text` that would end the transaction under way (`BEGIN`, `COMMIT`,
 * `ROLLBACK`, `PREPARE TRANSACTION`…), as its first words, or undefined. Read as PostgreSQL's lexer
 * reads it: a word inside a string, a quoted name, a dollar-quoted body (a `DO` block's `BEGIN`) or
 * a comment is not a statement; `ROLLBACK TO SAVEPOINT` ends nothing.
 */
export function transactionControl(text: string): string | undefined {
  // Only the first words of a statement decide.
  let words: string[] = [];
  const push = (word: string): void => {
    if (words.length < 4) words.push(word);
  };
  // A function's SQL-standard body (`BEGIN ATOMIC … END`, PostgreSQL 14) holds statements of its
  // own, and the CASE … END of its expressions: its semicolons end none of the statement's.
  let atomic = 0;
  let cases = 0;
  let last = '';
  const word = (read: string): void => {
    if (read === 'ATOMIC' && last === 'BEGIN' && words.length > 1) atomic++;
    else if (atomic > 0 && read === 'CASE') cases++;
    else if (atomic > 0 && read === 'END') {
      if (cases > 0) cases--;
      else atomic--;
    }
    last = read;
    push(read);
  };
  let i = 0;
  const statementEnds = (): string | undefined => {
    const ended = endingStatement(words);
    words = [];
    last = '';
    return ended;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === ';' && atomic > 0) {
      last = ';';
      i++;
    } else if (c === ';') {
      const ended = statementEnds();
      if (ended !== undefined) return ended;
      i++;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      i = blockCommentEnd(text, i);
    } else if (c === "'") {
      // E'…' takes backslash escapes.
      i = stringEnd(text, i, /[eE]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i - 2] ?? ''));
      push("'");
    } else if (c === '"') {
      i = stringEnd(text, i, false);
      push('"');
    } else if (c === '$') {
      const tag = /^\$(?:[A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(text.slice(i, i + 64))?.[0];
      if (tag === undefined) {
        i++;
      } else {
        const end = text.indexOf(tag, i + tag.length);
        i = end === -1 ? text.length : end + tag.length;
        push('$');
      }
    } else if (/[A-Za-z_]/.test(c)) {
      const read = /^[A-Za-z_][\w$]*/.exec(text.slice(i, i + 64))?.[0] ?? c;
      word(read.toUpperCase());
      i += read.length;
    } else {
      if (!/\s/.test(c)) push(c);
      i++;
    }
  }
  return statementEnds();
}

/** Whether a statement that starts with `words` ends the transaction: its first words if so. */
function endingStatement(words: readonly string[]): string | undefined {
  const [first, second, third] = words;
  switch (first ?? '') {
    case 'BEGIN':
    case 'COMMIT':
    case 'END':
    case 'ABORT':
      return first;
    case 'START':
      return second === 'TRANSACTION' ? 'START TRANSACTION' : undefined;
    case 'PREPARE':
      return second === 'TRANSACTION' ? 'PREPARE TRANSACTION' : undefined;
    case 'ROLLBACK': {
      // ROLLBACK [WORK | TRANSACTION] TO [SAVEPOINT] name rolls back to a savepoint only.
      const next = second === 'WORK' || second === 'TRANSACTION' ? third : second;
      return next === 'TO' ? undefined : 'ROLLBACK';
    }
    default:
      return undefined;
  }
}

function blockCommentEnd(text: string, start: number): number {
  // PostgreSQL's block comments nest.
  let depth = 0;
  let i = start;
  while (i < text.length) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (text[i] === '*' && text[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return text.length;
}

function stringEnd(text: string, start: number, escapes: boolean): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length) {
    if (escapes && text[i] === '\\') {
      i += 2;
    } else if (text[i] === quote) {
      // A doubled quote is the quote itself.
      if (text[i + 1] !== quote) return i + 1;
      i += 2;
    } else {
      i++;
    }
  }
  return text.length;
}

/** The refusal a handler's query gets, and what the inbox then says of the callback. */
export function transactionControlRefusal(statement: string): InboxError {
  return new InboxError(
    `payorch/postgres: refused ${statement} on the inbox's client: the inbox commits the callback's key together with the handlers' changes, and ends the transaction itself. A handler's own transaction is a SAVEPOINT (SAVEPOINT s, RELEASE SAVEPOINT s, ROLLBACK TO SAVEPOINT s); see docs/inboxes.md, "PostgreSQL"`,
  );
}

/** The client's `query` as the guard calls it: any of pg's forms. */
type Query = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Refuses, on `client` and until `remove()`, every query whose text would end the transaction:
 * the promise form rejects and the callback form is called with the error, as pg fails a query.
 * `refused` is the first such statement, so that the inbox does not commit what a handler meant to
 * undo, even when the handler caught the error. The client is the handlers' own object, patched, not
 * wrapped: libraries given it (an ORM, a query builder) see the same client.
 */
export function guardTransaction(client: object): { readonly refused: () => string | undefined; readonly remove: () => void } {
  const own = Object.getOwnPropertyDescriptor(client, 'query');
  const query = (client as { query: Query }).query;
  let refused: string | undefined;
  const guarded: Query = function (this: unknown, ...args: unknown[]): unknown {
    const [config] = args;
    const text = typeof config === 'string' ? config : typeof config === 'object' && config !== null && typeof (config as { text?: unknown }).text === 'string' ? (config as { text: string }).text : undefined;
    const statement = text === undefined ? undefined : transactionControl(text);
    if (statement === undefined) return query.apply(this, args);
    refused ??= statement;
    const error = transactionControlRefusal(statement);
    const callback = args.findLast((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined;
    if (callback === undefined) return Promise.reject(error);
    queueMicrotask(() => {
      callback(error);
    });
    return undefined;
  };
  Object.defineProperty(client, 'query', { value: guarded, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
  return {
    refused: () => refused,
    remove: () => {
      if (own === undefined) Reflect.deleteProperty(client, 'query');
      else Object.defineProperty(client, 'query', own);
    },
  };
}
