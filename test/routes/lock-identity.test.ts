/**
 * A lock named by what it guards (docs/design.md, "Vocabulary": a parent lock's key is
 * `_locks/<first 32 hex of sha256(identity)>`): every `/v1/locks/{key}` route takes a provider
 * object's identity as well as its key, resolved in one place, so nobody hashes by hand. A key
 * that is mistyped stays a 404, as does anything that is neither.
 */
import { describe, expect, it } from "vitest";
import type { HoldOutcome } from "../../shared/schemas/hold";
import type { LockState } from "../../shared/schemas/lock";
import type { ForceReleaseResult } from "../../shared/schemas/responses";
import { call, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appIdentity, appLockKey, holdAppLock } from "../helpers/engine";

const app = testApp();
const path = (keyOrIdentity: string, tail = "") => `/v1/locks/${encodeURIComponent(keyOrIdentity)}${tail}`;

describe("/v1/locks/{key} by identity", () => {
  it("an admin holds, reads, lifts and force-releases an object's lock by its identity", async () => {
    const domain = freshAuth0Domain();
    const identity = appIdentity(domain);
    const key = await appLockKey(domain);

    const held = await call(app, "POST", path(identity, "/hold"), {
      reason: "IdP migration",
      ttlSeconds: 600,
    });
    expect(held.status).toBe(200);
    expect(((await held.json()) as HoldOutcome & { lock: LockState }).lock.key).toBe(key);

    const read = await call(app, "GET", path(identity));
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ key, hold: { reason: "IdP migration" } });

    const lifted = await call(app, "DELETE", path(identity, "/hold"));
    expect(lifted.status).toBe(200);
    expect(await lifted.json()).toMatchObject({ previous: { reason: "IdP migration" }, lock: { key } });

    const stuck = await holdAppLock(domain, "run-stuck");
    const released = await call(app, "DELETE", path(identity), { reason: "stuck run" });
    expect(released.status).toBe(200);
    expect((await released.json()) as ForceReleaseResult).toMatchObject({
      released: true,
      lock: { key, held: false },
    });
    await stuck.release().catch(() => undefined);
  });

  it.for([
    ["a mistyped scope key", "scope:186853002/preview/pr-0"],
    ["a mistyped parent key", "_locks/abc"],
    ["text that names nothing", "not a lock"],
  ])("%s is 404 naming both forms", async ([, given]) => {
    const res = await call(app, "GET", path(given as string));
    expect(res.status).toBe(404);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe("NOT_FOUND");
    expect(problem.detail).toContain("_locks/<hash>");
    expect(problem.detail).toContain("identity");
  });
});
