/**
 * A run whose lease an admin force-released says who did it and why (docs/design.md, "Lease
 * protocol": forceRelease is recorded with actor and reason): the lock's refusal of the holder's
 * next renewal or fenced call names them, and the run's LOCK_LOST carries them in its message and
 * as `detail.forceReleased`. A lease lost any other way says nothing of the kind.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lostRefusal } from "../../durable-objects/lease-rules";
import { scopeLockKey } from "../../shared/lock-keys";
import { lockStub } from "../../workers/locks/lock-target";
import { apply, testApp } from "../helpers/app";
import { freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr } from "../helpers/engine";
import { auth0Plan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";

const plan = (domain: string) =>
  auth0Plan(domain, [
    { id: "cb", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);

async function runReleasedAt(lockOf: (domain: string, scope: string) => Promise<string>) {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const scope = freshPr();
  const app = testApp({
    engine: {
      // Between the intent and the write an admin force-releases the lock, with a reason.
      faults: async (point) => {
        if (point !== "after-intent") return;
        const key = await lockOf(domain, scope);
        await lockStub(env, key).forceRelease({ key, reason: "stuck run", actor: "alice" });
      },
    },
  });
  return apply(app, "preview", scope, plan(domain));
}

describe("a force-released run says who released it and why", () => {
  it("its parent lease: the line's LOCK_LOST names the admin and the reason", async () => {
    const result = await runReleasedAt((domain) => appLockKey(domain));
    expect(result.run.status).toBe("failed");
    const error = result.lines[0]?.error;
    expect(error?.code).toBe("LOCK_LOST");
    expect(error?.message).toContain("force-released by alice: stuck run");
    expect(error?.detail).toMatchObject({ forceReleased: { by: "alice", reason: "stuck run" } });
  });

  it("its scope lease: the run's LOCK_LOST names the admin and the reason", async () => {
    const result = await runReleasedAt(async (_domain, scope) =>
      scopeLockKey(DEFAULT_REPOSITORY.id, "preview", scope),
    );
    expect(result.run.status).toBe("failed");
    const lost = [result.run.error, ...result.lines.map((l) => l.error)].find((e) => e?.code === "LOCK_LOST");
    expect(lost?.message).toContain("force-released by alice: stuck run");
    expect(lost?.detail).toMatchObject({ forceReleased: { by: "alice", reason: "stuck run" } });
  });
});

describe("the refusal names a force-release only for the lease it ended (pure)", () => {
  const forced = { holder: "run-a", token: 5, by: "alice", reason: "stuck run", at: 1_000 };

  it("the holder and token that were force-released hear who and why", () => {
    const refusal = lostRefusal({ key: "k", holder: "run-a", token: 5 }, null, 2_000, forced);
    expect(refusal.ok).toBe(false);
    if (refusal.ok) return;
    expect(refusal.error.message).toContain("force-released by alice: stuck run");
    expect(refusal.error.detail).toMatchObject({
      forceReleased: { by: "alice", reason: "stuck run", at: 1_000 },
    });
  });

  it("control: an older token of the same holder, or another holder, hears only that it lost the lease", () => {
    for (const req of [
      { key: "k", holder: "run-a", token: 4 },
      { key: "k", holder: "run-b", token: 5 },
    ]) {
      const refusal = lostRefusal(req, null, 2_000, forced);
      if (refusal.ok) throw new Error("granted");
      expect(refusal.error.message).not.toContain("force-released");
      expect(refusal.error.detail).not.toHaveProperty("forceReleased");
    }
  });
});
