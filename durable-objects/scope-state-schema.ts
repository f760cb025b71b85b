/**
 * SQLite schema of the scope-state object: append-only numbered migrations, run in the
 * constructor inside blockConcurrencyWhile for an object that has a schema, and by the first write
 * of one that has none yet (./scope-state.ts says why). docs/webhooks.md lists the tables.
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
  // The sweep's re-sends of a close's destroys (durable-objects/close-resend-rules.ts), per close.
  `CREATE TABLE close_resends (
     delivery_id TEXT PRIMARY KEY,
     resends INTEGER NOT NULL,
     last_at INTEGER NOT NULL,
     lingering_notified_at INTEGER,
     exhausted_notified_at INTEGER
   );`,
  // A notice claimed by a sweep before it sends it, so two sweeps at once tell once (docs/design.md,
  // "Webhooks and the sweep").
  `ALTER TABLE close_resends ADD COLUMN lingering_claimed_at INTEGER;
   ALTER TABLE close_resends ADD COLUMN exhausted_claimed_at INTEGER;`,
  // Platform events (durable-objects/scope-platform-events.ts): seen event ids, and per platform
  // connection the newest deployment accepted for the scope (docs/design.md, "The platform door").
  `CREATE TABLE platform_events (
     event_id TEXT PRIMARY KEY,
     connection TEXT NOT NULL,
     deployment_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     enqueue_pending INTEGER NOT NULL,
     received_at INTEGER NOT NULL
   );
   CREATE INDEX platform_events_received_at ON platform_events (received_at);
   CREATE TABLE platform_heads (
     connection TEXT PRIMARY KEY,
     deployment_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     event_id TEXT NOT NULL,
     changed_at INTEGER NOT NULL
   );`,
];

/** Whether the object ever got its schema (a scope no event touched has none). */
export function hasSchema(sql: SqlStorage): boolean {
  return (
    sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'").toArray().length > 0
  );
}

export function migrate(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY)");
  const row = sql.exec<{ v: number | null }>("SELECT MAX(version) AS v FROM _migrations").one();
  const applied = row.v ?? 0;
  for (let version = applied + 1; version <= MIGRATIONS.length; version++) {
    sql.exec(MIGRATIONS[version - 1] as string);
    sql.exec("INSERT INTO _migrations (version) VALUES (?)", version);
  }
}
