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
  // Without a semicolon the text is one statement (always so with values: pg sends those by the
  // extended protocol, one statement each), and its first words decide: the scan stops there, so
  // that a long INSERT costs no more than a short one.
  const several = text.includes(';');
  // Only the first words of a statement decide.
  let words: string[] = [];
  // A function's SQL-standard body (`BEGIN ATOMIC … END`, PostgreSQL 14) holds statements of its
  // own, and the CASE … END of its expressions: its semicolons end none of the statement's.
  let atomic = 0;
  let cases = 0;
  let last = '';
  const push = (read: string): void => {
    if (words.length < 4) words.push(read);
  };
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
  while (i < text.length && (several || words.length < 4)) {
    const c = text.charCodeAt(i);
    if (c === SEMICOLON) {
      i++;
      last = ';';
      if (atomic > 0) continue;
      const ended = endingStatement(words);
      if (ended !== undefined) return ended;
      words = [];
    } else if (c === DASH && text.charCodeAt(i + 1) === DASH) {
      // PostgreSQL ends a line comment at either line break.
      while (i < text.length && text.charCodeAt(i) !== NEWLINE && text.charCodeAt(i) !== RETURN) i++;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      i = blockCommentEnd(text, i);
    } else if (c === QUOTE) {
      // E'…' takes backslash escapes.
      const escapes = (text.charCodeAt(i - 1) | 0x20) === LOWER_E && !isWordPart(text.charCodeAt(i - 2));
      i = stringEnd(text, i, escapes);
      push("'");
    } else if (c === DOUBLE_QUOTE) {
      i = stringEnd(text, i, false);
      push('"');
    } else if (c === DOLLAR) {
      const tagEnd = dollarTagEnd(text, i);
      if (tagEnd === undefined) {
        i++;
      } else {
        const tag = text.slice(i, tagEnd);
        const end = text.indexOf(tag, tagEnd);
        i = end === -1 ? text.length : end + tag.length;
        push('$');
      }
    } else if (isWordStart(c)) {
      let end = i + 1;
      while (end < text.length && isWordPart(text.charCodeAt(end))) end++;
      word(text.slice(i, end).toUpperCase());
      i = end;
    } else {
      if (c > SPACE) push(text[i] as string);
      i++;
    }
  }
  return endingStatement(words);
}

const [SEMICOLON, DASH, SLASH, STAR, QUOTE, DOUBLE_QUOTE, DOLLAR, NEWLINE, RETURN, SPACE, LOWER_E, BACKSLASH] = [59, 45, 47, 42, 39, 34, 36, 10, 13, 32, 101, 92];

/** A letter (any past ASCII, as PostgreSQL takes them) or `_`. */
function isWordStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
}

/** What may follow in a name: also digits and `$`. */
function isWordPart(c: number): boolean {
  return isWordStart(c) || (c >= 48 && c <= 57) || c === DOLLAR;
}

/** The end of a dollar quote's opening tag at `start` (`$$`, `$body$`), or undefined for a `$1`. */
function dollarTagEnd(text: string, start: number): number | undefined {
  let i = start + 1;
  if (text.charCodeAt(i) === DOLLAR) return i + 1;
  if (!isWordStart(text.charCodeAt(i))) return undefined;
  while (i < text.length && isWordPart(text.charCodeAt(i)) && text.charCodeAt(i) !== DOLLAR) i++;
  return text.charCodeAt(i) === DOLLAR ? i + 1 : undefined;
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
  const quote = text.charCodeAt(start);
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (escapes && c === BACKSLASH) {
      i += 2;
    } else if (c === quote) {
      // A doubled quote is the quote itself.
      if (text.charCodeAt(i + 1) !== quote) return i + 1;
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
    const given = typeof config === 'object' && config !== null ? (config as Partial<Record<'text' | 'callback' | 'submit' | 'handleError', unknown>>) : undefined;
    const text = typeof config === 'string' ? config : typeof given?.text === 'string' ? given.text : undefined;
    const statement = text === undefined ? undefined : transactionControl(text);
    if (statement === undefined) return query.apply(this, args);
    refused ??= statement;
    const error = transactionControlRefusal(statement);
    // Failed as pg fails each form: a submittable (pg-cursor) is returned and told through its
    // handleError; a callback, given last or as the config's, is called; else the promise rejects.
    if (typeof given?.submit === 'function') {
      const handleError = given.handleError;
      queueMicrotask(() => {
        if (typeof handleError === 'function') (handleError as (error: Error) => void).call(config, error);
      });
      return config;
    }
    const callback = (args.findLast((arg) => typeof arg === 'function') ?? (typeof given?.callback === 'function' ? given.callback : undefined)) as ((error: Error) => void) | undefined;
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
