/**
 * The lock object's schema (docs/storage.md): a fresh object runs every migration once; an object
 * whose schema is current runs none when constructed again; one behind runs only what it lacks.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { MIGRATIONS, migrateIfBehind } from "../../durable-objects/lease-schema";
import { freshScopeKey, granted, rawStub, stub } from "../helpers/locks";

const versions = (sql: SqlStorage) =>
  sql
    .exec<{ version: number }>("SELECT version FROM _migrations ORDER BY version")
    .toArray()
    .map((r) => r.version);
const columns = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>("SELECT name FROM pragma_table_info('lease')")
    .toArray()
    .map((r) => r.name);

describe("the lock object's schema", () => {
  it("is migrated once; a current schema is left alone; one behind gets only what it lacks", async ({
    expect,
  }) => {
    const key = freshScopeKey("schema");
    const all = MIGRATIONS.map((_, i) => i + 1);
    granted(await stub(key).acquire({ key, holder: "run-a", ttlMs: 30_000 }));
    await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
      const sql = state.storage.sql;
      expect(versions(sql)).toEqual(all);
      migrateIfBehind(sql);
      expect(versions(sql)).toEqual(all);
      // Behind by the last two migrations (the lease's origin, the stored answers' repository):
      // only those run, data kept.
      sql.exec("ALTER TABLE combined_answers DROP COLUMN by_repository");
      sql.exec("ALTER TABLE lease DROP COLUMN origin");
      sql.exec("DELETE FROM _migrations WHERE version >= ?", all.length - 1);
      migrateIfBehind(sql);
      expect(versions(sql)).toEqual(all);
      expect(columns(sql)).toContain("origin");
      expect(sql.exec<{ holder: string }>("SELECT holder FROM lease").one().holder).toBe("run-a");
    });
    expect(await stub(key).read({ key })).toMatchObject({ held: true, holder: "run-a" });
  });
});
