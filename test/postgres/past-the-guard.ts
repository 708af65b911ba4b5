import pg from 'pg';

/**
 * A query sent with pg's own `Client.prototype.query`, past the inbox's refusal of a handler's
 * BEGIN, COMMIT and ROLLBACK (src/inboxes/postgres/transaction-control.ts), as a library that took
 * pg's query before the inbox guarded the client may send it: what the inbox's check at COMMIT is
 * there for.
 */
export function pastTheGuard(client: pg.PoolClient, text: string): Promise<unknown> {
  return (pg.Client.prototype.query as (this: pg.PoolClient, text: string) => Promise<unknown>).call(client, text);
}
