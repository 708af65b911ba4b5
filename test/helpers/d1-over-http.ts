import type { D1DatabaseLike, D1PreparedStatementLike } from '../../src/inboxes/d1/index.js';

/*
 * A D1 database of workerd, reached from the test over HTTP: the statements run in a Worker, on
 * the binding itself, and only their results cross. miniflare's own proxy (getD1Database) makes
 * `prepare` and `bind` synchronous round trips through a thread of its own, and a read through it
 * cost several times the CPU of one request; the tests that poll D1 while a queue works spent
 * seconds on it. Preparing and binding happen here; running, one request: `all`, `run`, `first`
 * and `batch` answer what the binding answered, and an error of D1 is thrown with its name and
 * message. The values bound reach D1 as they were given (undefined, a Date and bytes too), so
 * that D1 accepts or refuses them as it would in the Worker.
 */

/** The function a Worker runs the statements it is sent with, on `db`: for a Worker of the test's to route to. */
export const RUN_D1 = `
async function runD1(db, request) {
  const { mode, column, statements } = await request.json();
  const revived = ([kind, value]) => (kind === 'undefined' ? undefined : kind === 'date' ? new Date(value) : kind === 'bytes' ? Uint8Array.from(atob(value), (char) => char.charCodeAt(0)).buffer : value);
  try {
    const prepared = statements.map(([query, ...values]) => (values.length === 0 ? db.prepare(query) : db.prepare(query).bind(...values.map(revived))));
    const [first] = prepared;
    const result =
      mode === 'batch' ? await db.batch(prepared) : mode === 'all' ? await first.all() : mode === 'run' ? await first.run() : column === undefined ? await first.first() : await first.first(column);
    return Response.json({ result });
  } catch (error) {
    return Response.json({ error: { name: error.name, message: error.message } }, { status: 500 });
  }
}
`;

/** The module of a Worker that runs the statements it is sent on `env.DB`. */
export const D1_WORKER = `${RUN_D1}
export default { fetch: (request, env) => runD1(env.DB, request) };
`;

type Send = (body: string) => Promise<{ json(): Promise<unknown> }>;
type Mode = 'all' | 'run' | 'first' | 'batch';

/** A bound value as JSON, tagged with what JSON alone would lose. */
function carried(value: unknown): readonly [string, unknown] {
  if (value === undefined) return ['undefined', null];
  if (value instanceof Date) return ['date', value.getTime()];
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return ['bytes', Buffer.from(bytes).toString('base64')];
  }
  return ['json', value];
}

async function execute(send: Send, mode: Mode, statements: readonly (readonly unknown[])[], column?: string): Promise<unknown> {
  const answer = (await (await send(JSON.stringify({ mode, column, statements }))).json()) as { result?: unknown; error?: { name: string; message: string } };
  if (answer.error !== undefined) throw Object.assign(new Error(answer.error.message), { name: answer.error.name });
  return answer.result;
}

class Statement implements D1PreparedStatementLike {
  constructor(
    private readonly send: Send,
    readonly query: string,
    readonly values: readonly unknown[] = [],
  ) {}

  bind(...values: unknown[]): Statement {
    return new Statement(this.send, this.query, values);
  }

  // D1's own signatures, as the interface declares them.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
  all<T = unknown>(): Promise<{ readonly results?: readonly T[] | undefined }> {
    return execute(this.send, 'all', [[this.query, ...this.values.map(carried)]]) as Promise<{ readonly results?: readonly T[] | undefined }>;
  }

  run(): Promise<{ readonly meta?: { readonly changes?: number | undefined } | undefined }> {
    return execute(this.send, 'run', [[this.query, ...this.values.map(carried)]]) as Promise<{ readonly meta?: { readonly changes?: number | undefined } | undefined }>;
  }

  first<T = unknown>(column?: string): Promise<T | null> {
    return execute(this.send, 'first', [[this.query, ...this.values.map(carried)]], column) as Promise<T | null>;
  }
}

/** The database whose statements `send` carries to a Worker's {@link RUN_D1}. */
export function d1OverHttp(send: Send): D1DatabaseLike {
  return {
    prepare: (query) => new Statement(send, query),
    batch: (statements) =>
      execute(
        send,
        'batch',
        statements.map((statement) => {
          if (!(statement instanceof Statement)) throw new TypeError('batch takes statements this database prepared');
          return [statement.query, ...statement.values.map(carried)];
        }),
      ) as Promise<unknown[]>,
  };
}

/** The database of a Worker that is {@link D1_WORKER}, listening at `origin`. */
export const d1At = (origin: URL | string): D1DatabaseLike => d1OverHttp((body) => fetch(origin, { method: 'POST', body }));

/**
 * A Worker to add beside one the test does not write (a recipe file, its main module): {@link
 * D1_WORKER} on the D1 database named `database`, which the other's binding of that name shares,
 * routed at d1.test. Requests to miniflare's address still reach the first Worker.
 */
export const d1Beside = (database: string) => ({ name: 'd1-over-http', modules: true, script: D1_WORKER, compatibilityDate: '2025-09-01', d1Databases: { DB: database }, routes: ['d1.test/*'] });

/** The database of the {@link d1Beside} Worker of `miniflare`. */
export const d1Of = (miniflare: { dispatchFetch(url: string, init: { method: string; body: string }): Promise<{ json(): Promise<unknown> }> }): D1DatabaseLike =>
  d1OverHttp((body) => miniflare.dispatchFetch('http://d1.test/', { method: 'POST', body }));
