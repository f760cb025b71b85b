/**
 * The owned-object index (docs/storage.md, `locks/owned/`) is how the sweep finds the objects whose
 * locks keep ownership: an object missing from it is never searched for orphans. So the mark that
 * ownership was rebuilt (after which the index is never written again) follows a successful index
 * put; a failed put leaves the object unmarked, and the next holder rebuilds and puts again.
 */
import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import { ownedObjectKey } from "../../shared/lock-index";
import { freshScopeKey, granted, metaValue, stub } from "../helpers/locks";

const TTL_MS = 30_000;
const OP = "auth0.callbackUrl";
const OWNER = "186853002/preview/pr-1";

describe("the owned-object index put and the rebuilt mark", () => {
  it("a failed index put (R2 refuses the key) leaves the object unmarked, so the next holder tries again", async ({
    expect,
  }) => {
    // R2 refuses keys over 1,024 bytes: this object's index put always fails.
    const key = `${freshScopeKey("owned")}-${"x".repeat(1_100)}`;
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const changed = await lock
      .changeOwners({
        key,
        holder: "run-a",
        token: a.token,
        changes: [{ action: "add", op: OP, key: "https://pr-1.example.com/cb", owner: OWNER }],
        rebuilt: true,
      })
      .then(
        (r) => r,
        (err: unknown) => ({ threw: String(err) }),
      );
    // The ownership itself is recorded (and answered); only the mark waits for the index.
    expect(changed).toMatchObject({ ok: true, value: { rebuilt: false } });
    expect(await metaValue(key, "owners_rebuilt")).toBeNull();
    const view = granted(await lock.owners({ key, holder: "run-a", token: a.token, items: [] }));
    expect(view.rebuilt).toBe(false);
  });

  it("a successful put writes the index entry and marks the object rebuilt", async ({ expect }) => {
    const key = freshScopeKey("owned");
    const lock = stub(key);
    const a = granted(await lock.acquire({ key, holder: "run-a", ttlMs: TTL_MS }));
    const view = granted(
      await lock.changeOwners({ key, holder: "run-a", token: a.token, changes: [], rebuilt: true }),
    );
    expect(view.rebuilt).toBe(true);
    expect(await env.RECEIPTS.head(ownedObjectKey(key))).not.toBeNull();
  });
});
