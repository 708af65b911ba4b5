// The tables the database recipes keep beside the callback inbox, and how they read your order
// row of a tracking code. Money is exact: `numeric` in PostgreSQL, integer kuruş in SQLite (D1,
// Durable Objects), whose REAL would round. In a real application these belong to its migrations;
// the order row is saved when startDeposit or startWithdrawal answered, before the customer is
// sent to the payment page.
import type { D1DatabaseLike } from 'payorch/d1';
import { kurus } from './orders.js';
import type { Order } from './orders.js';

/** PostgreSQL: your orders (max_amount: the most you credit as paid for a deposit), balances and a ledger row per credit. */
export const POSTGRES_TABLES_SQL: readonly string[] = [
  'CREATE TABLE IF NOT EXISTS orders (tracking_code text PRIMARY KEY, kind text NOT NULL, user_id text NOT NULL, amount numeric(14, 2) NOT NULL, max_amount numeric(14, 2), paid_amount numeric(14, 2))',
  'CREATE TABLE IF NOT EXISTS balances (user_id text PRIMARY KEY, amount numeric(14, 2) NOT NULL DEFAULT 0)',
  'CREATE TABLE IF NOT EXISTS ledger (tracking_code text PRIMARY KEY, user_id text NOT NULL, amount numeric(14, 2) NOT NULL)',
];

/**
 * SQLite (D1, a Durable Object): the same tables, amounts in integer kuruş; an order's end status
 * as applied, and your payouts (dealer transfers) with theirs, which the schedules read.
 */
export const SQLITE_TABLES_SQL: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS orders (tracking_code TEXT PRIMARY KEY, kind TEXT NOT NULL, user_id TEXT NOT NULL, amount_kurus INTEGER NOT NULL, max_amount_kurus INTEGER, status TEXT NOT NULL DEFAULT 'pending')",
  'CREATE TABLE IF NOT EXISTS balances (user_id TEXT PRIMARY KEY, amount_kurus INTEGER NOT NULL DEFAULT 0)',
  'CREATE TABLE IF NOT EXISTS ledger (tracking_code TEXT PRIMARY KEY, user_id TEXT NOT NULL, amount_kurus INTEGER NOT NULL)',
  "CREATE TABLE IF NOT EXISTS payouts (transfer_id TEXT PRIMARY KEY, status TEXT NOT NULL DEFAULT 'pending')",
];

/** An amount as PostgreSQL's numeric reads it exactly: two decimals, no float in between. */
export const decimal = (amount: number): string => (kurus(amount) / 100).toFixed(2);

interface OrderRow {
  readonly kind: string;
  readonly user_id: string;
  readonly amount: number;
  readonly max_amount: number | null;
}

// A row the recipes did not write (another kind, a deposit without its ceiling) is no order: refused.
function orderOf(row: OrderRow | undefined): Order | undefined {
  if (row === undefined) return undefined;
  const { kind, user_id: userId, amount, max_amount: maxAmount } = row;
  if (kind === 'deposit') return maxAmount === null ? undefined : { kind, userId, amount, maxAmount };
  if (kind === 'withdrawal' || kind === 'creditCard') return { kind, userId, amount };
  return undefined;
}

/** The part of pg's client (or pool) the lookup uses. */
interface Queryable {
  query(text: string, values: unknown[]): Promise<{ readonly rows: unknown[] }>;
}

/** Your order row in PostgreSQL, read through `client`: the inbox's transaction in a handler or `confirm`. */
export async function postgresOrder(client: Queryable, trackingCode: string): Promise<Order | undefined> {
  const { rows } = await client.query('SELECT kind, user_id, amount, max_amount FROM orders WHERE tracking_code = $1', [trackingCode]);
  const row = rows[0] as { kind: string; user_id: string; amount: string; max_amount: string | null } | undefined;
  return orderOf(row === undefined ? undefined : { ...row, amount: Number(row.amount), max_amount: row.max_amount === null ? null : Number(row.max_amount) });
}

/** A row of SQLite's `orders`. */
/**
 * Credits a completed deposit through `client`, the inbox's transaction, so that it commits with
 * the callback's key: the amount paid is recorded with the order, written to the ledger and added
 * to the balance of the order's user (not the callback's `user_id`, which the hash does not cover).
 */
export async function creditDeposit(client: Queryable, trackingCode: string, paid: number): Promise<void> {
  const order = await postgresOrder(client, trackingCode);
  if (order === undefined) throw new Error(`confirm found the order of ${trackingCode}`);
  await client.query('UPDATE orders SET paid_amount = $2 WHERE tracking_code = $1', [trackingCode, decimal(paid)]);
  await client.query('INSERT INTO ledger (tracking_code, user_id, amount) VALUES ($1, $2, $3)', [trackingCode, order.userId, decimal(paid)]);
  await client.query('INSERT INTO balances (user_id, amount) VALUES ($1, $2) ON CONFLICT (user_id) DO UPDATE SET amount = balances.amount + EXCLUDED.amount', [order.userId, decimal(paid)]);
}

/** A row of SQLite's `orders`. */
export interface SqliteOrderRow {
  readonly kind: string;
  readonly user_id: string;
  readonly amount_kurus: number;
  readonly max_amount_kurus: number | null;
}

/** Your order row of SQLite's `orders` (kuruş) as an {@link Order} (lira). */
export function sqliteOrder(row: SqliteOrderRow | undefined): Order | undefined {
  if (row === undefined) return undefined;
  return orderOf({ kind: row.kind, user_id: row.user_id, amount: row.amount_kurus / 100, max_amount: row.max_amount_kurus === null ? null : row.max_amount_kurus / 100 });
}

/** Your order row in D1. */
export async function d1Order(db: D1DatabaseLike, trackingCode: string): Promise<Order | undefined> {
  const { results = [] } = await db.prepare('SELECT kind, user_id, amount_kurus, max_amount_kurus FROM orders WHERE tracking_code = ?').bind(trackingCode).all();
  return sqliteOrder(results[0] as SqliteOrderRow | undefined);
}
