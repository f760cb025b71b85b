/**
 * SQLite schema of the lease object, append-only numbered migrations run in the constructor, before
 * any call is delivered (Cloudflare's rules of Durable Objects). docs/storage.md mirrors it.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
   CREATE TABLE lease (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     holder TEXT NOT NULL,
     token INTEGER NOT NULL,
     acquired_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     ttl_ms INTEGER NOT NULL
   );
   CREATE TABLE history (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     at INTEGER NOT NULL,
     transition TEXT NOT NULL,
     holder TEXT NOT NULL,
     token INTEGER NOT NULL,
     note TEXT
   );`,
  // Ownership of the shared object's items (docs/design.md, "Ownership of shared entries").
  `CREATE TABLE owners (
     op TEXT NOT NULL,
     item TEXT NOT NULL,
     owner TEXT NOT NULL,
     since INTEGER NOT NULL,
     PRIMARY KEY (op, item, owner)
   );
   CREATE TABLE foreign_items (
     op TEXT NOT NULL,
     item TEXT NOT NULL,
     since INTEGER NOT NULL,
     PRIMARY KEY (op, item)
   );`,
  // Where each op's list lives on the object, for the sweep's orphan search.
  `CREATE TABLE locators (
     op TEXT PRIMARY KEY,
     connection TEXT NOT NULL,
     params TEXT NOT NULL
   );`,
  // A lease granted to a waiter is provisional until the waiter claims it (docs/design.md,
  // "Lease protocol"): 1 while unclaimed, and expires_at is then the claim deadline.
  "ALTER TABLE lease ADD COLUMN claim_pending INTEGER NOT NULL DEFAULT 0;",
  // Write combining (docs/design.md, "Write combining: the lock object's side"): the answer to a
  // waiter whose changes another run wrote, kept until delivered or aged out (combine-store.ts).
  `CREATE TABLE combined_answers (
     waiter TEXT PRIMARY KEY,
     by_holder TEXT NOT NULL,
     token INTEGER NOT NULL,
     outcomes TEXT NOT NULL,
     complete INTEGER NOT NULL,
     at INTEGER NOT NULL
   );`,
  // Providers that forget a write (docs/design.md): the latest write of each item, remembered
  // until `until` so the next holder can merge it over a read that does not show it yet.
  `CREATE TABLE recent_writes (
     op TEXT NOT NULL,
     item TEXT NOT NULL,
     params TEXT NOT NULL,
     action TEXT NOT NULL,
     at INTEGER NOT NULL,
     until INTEGER NOT NULL,
     PRIMARY KEY (op, item)
   );`,
  // Scope locks of 0.1.x: intents made durable here before their parent lease, until a holder's
  // final receipt save held them. No row is added since (intents live in the receipt only): the
  // upgrade drains what is left (legacy-intents.ts); the table stays, migrations being append-only.
  `CREATE TABLE pending_intents (
     id TEXT PRIMARY KEY,
     body TEXT NOT NULL,
     at INTEGER NOT NULL
   );`,
  // Holds (docs/design.md, "Lease protocol: holds"; hold-store.ts): an admin's hold on grants.
  `CREATE TABLE holds (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     reason TEXT NOT NULL,
     by_actor TEXT NOT NULL,
     since INTEGER NOT NULL,
     until INTEGER NOT NULL
   );`,
  // Provenance (docs/design.md, "Provenance"): the holding run's origin as JSON (RunOrigin), named
  // in every lock answer; null for a holder that did not describe itself.
  "ALTER TABLE lease ADD COLUMN origin TEXT;",
  // The holder's repository beside a stored combined answer: a waiter of the same repository is
  // told the holder's run; null (another's, as far as anyone can say) for a row from before.
  "ALTER TABLE combined_answers ADD COLUMN by_repository INTEGER;",
];

/**
 * The schema version the object's storage is at: one read-only query in the common case (an
 * object whose schema is current, every construction after its first). A fresh object has no
 * `_migrations` table yet: version 0.
 */
function appliedVersion(sql: SqlStorage): number {
  try {
    return sql.exec<{ v: number | null }>("SELECT MAX(version) AS v FROM _migrations").one().v ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Runs the migrations the storage has not applied yet. The check is one query; the migration
 * work (the `_migrations` table's creation included) runs only when the version is behind, so an
 * object constructed again (after eviction, a deploy) does not pay for it at every construction.
 * What is behind runs as one script (a fresh object, every new scope's lock, runs them all): one
 * call into SQLite, not two per migration.
 */
export function migrateIfBehind(sql: SqlStorage): void {
  const applied = appliedVersion(sql);
  if (applied >= MIGRATIONS.length) return;
  const pending = MIGRATIONS.slice(applied).map((m) => (m.trim().endsWith(";") ? m : `${m};`));
  const versions = pending.map((_, i) => `(${applied + i + 1})`).join(", ");
  sql.exec(
    [
      "CREATE TABLE IF NOT EXISTS _migrations (version INTEGER PRIMARY KEY);",
      ...pending,
      `INSERT INTO _migrations (version) VALUES ${versions};`,
    ].join("\n"),
  );
}
