/** What a table's migration did (`createPostgresInboxTable` and the other tables' creators). */
export interface TableMigration {
  /** The table, as the engine names it (with its schema in PostgreSQL). */
  readonly table: string;
  /** The version it was at; undefined when it did not exist and was created now. Equal to `to` when there was nothing to do. */
  readonly from: number | undefined;
  /** The version it is at now: this payorch's. */
  readonly to: number;
}
