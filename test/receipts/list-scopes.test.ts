import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { receiptKey } from "../../workers/receipts/layout";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { at, freshEnvironment, receiptWith, store, TEST_REPO } from "./helpers";

/** The real bucket, with a count of list() calls so a test can prove it walked several pages. */
function countingBucket(): { bucket: R2Bucket; pages: () => number } {
  let pages = 0;
  const real = env.RECEIPTS;
  const bucket = new Proxy(real, {
    get(target, prop) {
      if (prop === "list") {
        return (options?: R2ListOptions) => {
          pages += 1;
          return target.list(options);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { bucket, pages: () => pages };
}

async function seed(environment: string, scopes: Record<string, number>): Promise<void> {
  for (const [scope, entries] of Object.entries(scopes)) {
    const keys = Array.from({ length: entries }, (_, i) => `https://${scope}.example.com/${i}`);
    await store().write(receiptWith(environment, scope, keys), null);
  }
}

describe("listing scopes that have receipts", () => {
  it("by environment, over several pages, with entry counts from custom metadata", async () => {
    const preview = freshEnvironment();
    const other = freshEnvironment();
    await seed(preview, { "pr-1": 3, "pr-2": 0, "pr-3": 1, "branch-feature/x": 2, main: 5 });
    await seed(other, { "pr-1": 9 });

    const { bucket, pages } = countingBucket();
    const listed = await new R2ReceiptStore(bucket, { listPageSize: 2 }).listScopes({ environment: preview });

    expect(pages()).toBeGreaterThanOrEqual(3);
    expect(listed.map((s) => [s.environment, s.scope, s.entries])).toEqual([
      [preview, "branch-feature/x", 2],
      [preview, "main", 5],
      [preview, "pr-1", 3],
      [preview, "pr-2", 0],
      [preview, "pr-3", 1],
    ]);
    for (const summary of listed) expect(summary.uploadedAt).toBeGreaterThan(0);
  });

  it("across environments, over several pages", async () => {
    const a = freshEnvironment();
    const b = freshEnvironment();
    await seed(a, { "pr-1": 1, "pr-2": 2 });
    await seed(b, { "pr-1": 3, main: 4 });

    const { bucket, pages } = countingBucket();
    const listed = await new R2ReceiptStore(bucket, { listPageSize: 2 }).listScopes();

    expect(pages()).toBeGreaterThanOrEqual(2);
    const ours = listed.filter((s) => s.environment === a || s.environment === b);
    expect(ours.map((s) => `${s.environment}/${s.scope}=${s.entries}`).sort()).toEqual(
      [`${a}/pr-1=1`, `${a}/pr-2=2`, `${b}/main=4`, `${b}/pr-1=3`].sort(),
    );
  });

  it("skips removed scopes and keys that are not receipts", async () => {
    const environment = freshEnvironment();
    await seed(environment, { "pr-1": 1 });
    const gone = await store().write(receiptWith(environment, "pr-2", ["x"]), null);
    await store().remove(at(environment, "pr-2"), gone);
    await env.RECEIPTS.put(`receipts/${environment}/notes.txt`, "not a receipt");
    await env.RECEIPTS.put(`receipts/${environment}/not-a-scope.json`, "{}");

    const listed = await store({ listPageSize: 1 }).listScopes({ environment: environment });
    expect(listed.map((s) => s.scope)).toEqual(["pr-1"]);
  });

  it("reads the receipt itself when its object carries no metadata (written by hand)", async () => {
    const environment = freshEnvironment();
    await env.RECEIPTS.put(
      receiptKey(TEST_REPO.id, environment, "pr-7"),
      JSON.stringify(receiptWith(environment, "pr-7", ["a", "b"])),
    );
    expect(await store().listScopes({ environment: environment })).toMatchObject([
      { environment, scope: "pr-7", entries: 2 },
    ]);
  });
});
