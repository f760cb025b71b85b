/**
 * The reads of a warm apply (docs/design.md, "Run algorithm", steps 2 and 4; docs/performance.md):
 * a run reads the scope's receipt at its repository-keyed address and nowhere else, and its scope
 * lock never reads the intents locks of 0.1.x kept. What versions before 0.2.0 wrote in those
 * layouts is moved by the upgrade (docs/upgrading.md, "The upgrade pass"), not looked for by every
 * run: the receipt key before repositories was two more R2 reads per apply of a new scope (before
 * and under the lease), and the lock's rows three more SQL statements per apply.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LeaseLock } from "../../durable-objects/lease-lock";
import { scopeLockKey } from "../../shared/lock-keys";
import { call, runOf, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { granted, rawStub, stub } from "../helpers/locks";
import { previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

/** The Worker's receipts bucket, recording the key (or listing prefix) of every read it is asked for. */
function recordingBucket(reads: string[]): R2Bucket {
  const bucket = env.RECEIPTS;
  return new Proxy(bucket, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "head") {
        return (key: string, ...rest: unknown[]) => {
          reads.push(`${prop} ${key}`);
          return value.call(target, key, ...rest);
        };
      }
      if (prop === "list") {
        return (options?: R2ListOptions) => {
          reads.push(`list ${options?.prefix ?? ""}`);
          return value.call(target, options);
        };
      }
      return value.bind(target);
    },
  });
}

/**
 * Starts the lock object of `key` (it counts the rows it keeps once, as it starts) and records, from
 * then on, every SQL statement it runs that names the table of 0.1.x's intents.
 */
async function watchLegacySql(key: string): Promise<string[]> {
  const seen: string[] = [];
  await runInDurableObject(rawStub(key), async (_instance: LeaseLock, state) => {
    const sql = state.storage.sql;
    const exec = sql.exec.bind(sql);
    sql.exec = ((query: string, ...bindings: unknown[]) => {
      if (query.includes("pending_intents")) seen.push(query);
      return exec(query, ...bindings);
    }) as typeof sql.exec;
  });
  return seen;
}

describe("the reads of a warm apply", () => {
  it("reads the new scope's receipt at its own key twice (before and under the lease), and nothing of a retired layout", async () => {
    const domain = freshAuth0Domain("receipt-reads");
    await seedTenant(domain);
    const app = testApp();
    await runOf(
      await call(app, "POST", `/v1/scopes/preview/${freshPr()}/apply`, { plan: previewPlan(domain) }),
      "warm-up apply",
    );
    const reads: string[] = [];
    const bindings = { ...env, RECEIPTS: recordingBucket(reads) } as typeof env;
    const scope = freshPr();
    const lock = scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope);
    const lockSql = await watchLegacySql(lock);
    const result = await runOf(
      await call(
        app,
        "POST",
        `/v1/scopes/preview/${scope}/apply`,
        { plan: previewPlan(domain) },
        {},
        bindings,
      ),
      `apply ${scope}`,
    );
    expect(result.lines.map((l) => l.result)).toEqual(["created", "created", "created"]);
    const receiptReads = reads.filter((r) => r.includes("receipts/"));
    expect(receiptReads).toEqual([
      `get receipts/186853002/preview/${scope}.json`,
      `get receipts/186853002/preview/${scope}.json`,
    ]);
    // No key of the layout before repositories, no listing of locks keeping intents of 0.1.x.
    expect(reads.filter((r) => r.includes(`receipts/preview/`) || r.includes("pending-intents"))).toEqual([]);
    expect(lockSql).toEqual([]);

    // Control: the watch sees the lock's legacy reads when there are any (the upgrade's drain).
    const lease = granted(await stub(lock).acquire({ key: lock, holder: "upgrade-x", ttlMs: 30_000 }));
    granted(await stub(lock).drainLegacyIntents({ key: lock, holder: "upgrade-x", token: lease.token }));
    expect(lockSql.length).toBeGreaterThan(0);
  });
});
