/**
 * The owners and foreign-item tables of a lock object (lease-schema.ts, migration 2). Plain SQL
 * over the object's own storage: the lease object decides who may call these (the current holder).
 */
import type {
  ItemOwnership,
  Locator,
  OwnedItem,
  OwnerChange,
  OwnershipShares,
} from "../shared/schemas/ownership";

export function readOwnership(sql: SqlStorage, items: readonly OwnedItem[]): ItemOwnership[] {
  return items.map(({ op, key }) => {
    const owners = sql
      .exec<{ owner: string }>("SELECT owner FROM owners WHERE op = ? AND item = ? ORDER BY owner", op, key)
      .toArray()
      .map((r) => r.owner);
    const foreign =
      sql.exec("SELECT 1 FROM foreign_items WHERE op = ? AND item = ?", op, key).toArray().length > 0;
    return { op, key, owners, foreign };
  });
}

/**
 * Each owner's and each repository's count of `ops`' items (owners are `<repository id>/<env>/<scope>`:
 * an item two scopes of one repository own counts once for it).
 */
export function sharesOf(sql: SqlStorage, ops: readonly string[]): OwnershipShares {
  const shares: OwnershipShares = { owners: [], repositories: [] };
  for (const op of new Set(ops)) {
    for (const r of sql
      .exec<{ owner: string; n: number }>(
        "SELECT owner, COUNT(*) AS n FROM owners WHERE op = ? GROUP BY owner ORDER BY owner",
        op,
      )
      .toArray())
      shares.owners.push({ op, owner: r.owner, entries: r.n });
    for (const r of sql
      .exec<{ repo: number; n: number }>(
        `SELECT CAST(substr(owner, 1, instr(owner, '/') - 1) AS INTEGER) AS repo, COUNT(DISTINCT item) AS n
         FROM owners WHERE op = ? GROUP BY repo ORDER BY repo`,
        op,
      )
      .toArray())
      if (r.repo > 0) shares.repositories.push({ op, repositoryId: r.repo, entries: r.n });
  }
  return shares;
}

/** Every item the object knows an owner or a foreign mark for (the dashboard and the sweep). */
export function allOwnership(sql: SqlStorage): ItemOwnership[] {
  const items = sql
    .exec<{ op: string; item: string }>(
      "SELECT op, item FROM owners UNION SELECT op, item FROM foreign_items ORDER BY op, item",
    )
    .toArray()
    .map((r) => ({ op: r.op, key: r.item }));
  return readOwnership(sql, items);
}

export function applyOwnerChanges(sql: SqlStorage, changes: readonly OwnerChange[], now: number): void {
  for (const change of changes) {
    switch (change.action) {
      case "add":
        sql.exec(
          "INSERT INTO owners (op, item, owner, since) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
          change.op,
          change.key,
          change.owner,
          now,
        );
        break;
      case "remove":
        sql.exec(
          "DELETE FROM owners WHERE op = ? AND item = ? AND owner = ?",
          change.op,
          change.key,
          change.owner,
        );
        break;
      case "foreign":
        sql.exec(
          "INSERT INTO foreign_items (op, item, since) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
          change.op,
          change.key,
          now,
        );
        break;
      case "not-foreign":
        sql.exec("DELETE FROM foreign_items WHERE op = ? AND item = ?", change.op, change.key);
        break;
    }
  }
}

export function saveLocator(sql: SqlStorage, locator: Locator): void {
  sql.exec(
    `INSERT INTO locators (op, connection, params) VALUES (?, ?, ?)
     ON CONFLICT (op) DO UPDATE SET connection = excluded.connection, params = excluded.params`,
    locator.op,
    locator.connection,
    JSON.stringify(locator.params),
  );
}

export function allLocators(sql: SqlStorage): Locator[] {
  return sql
    .exec<{ op: string; connection: string; params: string }>(
      "SELECT op, connection, params FROM locators ORDER BY op",
    )
    .toArray()
    .map((r) => ({
      op: r.op,
      connection: r.connection,
      params: JSON.parse(r.params) as Record<string, string>,
    }));
}
