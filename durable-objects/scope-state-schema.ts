/**
 * SQLite schema of the scope-state object: append-only numbered migrations, run in the
 * constructor inside blockConcurrencyWhile. docs/webhooks.md lists the tables.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE state (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     scope TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
     revision INTEGER NOT NULL,
     delivery_id TEXT,
     changed_at INTEGER NOT NULL
   );
   CREATE TABLE deliveries (
     delivery_id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     revision INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     enqueue_pending INTEGER NOT NULL,
     received_at INTEGER NOT NULL
   );
   CREATE INDEX deliveries_received_at ON deliveries (received_at);`,
];

export function migrate(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY)");
  const row = sql.exec<{ v: number | null }>("SELECT MAX(version) AS v FROM _migrations").one();
  const applied = row.v ?? 0;
  for (let version = applied + 1; version <= MIGRATIONS.length; version++) {
    sql.exec(MIGRATIONS[version - 1] as string);
    sql.exec("INSERT INTO _migrations (version) VALUES (?)", version);
  }
}
