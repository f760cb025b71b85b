/**
 * The group's claims renew the parent lease at the object, and are the round-trip check right
 * before the write (docs/design.md, "Lease protocol"). A lease lost after that call answered is a
 * lease lost while the write is in flight: the write may land, the check after it (the release)
 * fails, and the group ends LOCK_LOST with an unknown outcome, its intents kept. Lost
 * before the call, the claims are refused and nothing is written; a deadline passed in between is
 * still caught before the write by the local check.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../shared/schemas/run";
import type { LockProvider } from "../../workers/engine/deps";
import { type LockTarget, lockStub } from "../../workers/locks/lock-target";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { ManualClock } from "../helpers/clock";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { appLockKey, freshPr, providerWrites, receipt } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

/** Past every lease deadline, whatever renewal the timers it fires on the way still make. */
const LONG_PAST_MS = 10 * 60_000;

/** Every parent lock call the run makes, by name, and `around` run before or after changeOwners. */
function parentLocks(calls: string[], around: { before?: () => Promise<void>; after?: () => Promise<void> }) {
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    parent: async (identity) => {
      const target = await inner.parent(identity);
      const named = new Proxy(target, {
        get(t, prop) {
          const value: unknown = Reflect.get(t, prop, t);
          if (typeof value !== "function" || typeof prop !== "string") return value;
          return (...args: unknown[]) => {
            calls.push(prop);
            return value.apply(t, args);
          };
        },
      }) as LockTarget;
      return overriding(named, {
        changeOwners: async (req) => {
          await around.before?.();
          const answer = await named.changeOwners(req);
          await around.after?.();
          return answer;
        },
      });
    },
  });
}

async function forceReleaseApp(domain: string): Promise<void> {
  const key = await appLockKey(domain);
  await lockStub(env, key).forceRelease({ key, reason: "test: lost around the claims", actor: "admin" });
}

/** A known application: its lock object's one-time work (rebuild, first looks) is done. */
async function knownApplication(): Promise<string> {
  const domain = freshAuth0Domain();
  await seedTenant(domain);
  const warm = await applyWith({}, domain, freshPr());
  expect(warm.run.status).toBe("succeeded");
  return domain;
}

function applyWith(overrides: EngineOverrides, domain: string, scope: string): Promise<RunResult> {
  const plan = previewPlan(domain);
  return testEngine(overrides).apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
  });
}

describe("the claims as the fencing check before the write", () => {
  it("lost right after the claims answered: the write goes out, the check after it fails, the outcome is unknown", async () => {
    const domain = await knownApplication();
    const scope = freshPr();
    const calls: string[] = [];
    const wrapLocks = parentLocks(calls, { after: () => forceReleaseApp(domain) });
    const result = await applyWith({ wrapLocks }, domain, scope);
    expect(result.run.status).toBe("failed");
    for (const line of result.lines) {
      expect(line.error?.code).toBe("LOCK_LOST");
      expect(line.error?.message).toContain("may have landed");
    }
    // The write was sent under the lease the claims had just renewed, and landed.
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toContain(
      `https://${scope}.preview.example.com/callback`,
    );
    // Its intents stay for recovery. The check after the write is the release (nothing else
    // follows a group of creates): it answered that the lease was no longer this run's.
    expect((await receipt("preview", scope)).intents).toHaveLength(3);
    expect(calls.filter((c) => c !== "takeQueued")).toEqual(["acquireOrCombine", "changeOwners", "release"]);
  });

  it("lost right before the claims: they are refused and nothing is written", async () => {
    const domain = await knownApplication();
    const scope = freshPr();
    const calls: string[] = [];
    const wrapLocks = parentLocks(calls, { before: () => forceReleaseApp(domain) });
    const writes = await providerWrites(domain);
    const result = await applyWith({ wrapLocks }, domain, scope);
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.error?.code)).toEqual(["LOCK_LOST", "LOCK_LOST", "LOCK_LOST"]);
    expect(result.lines.map((l) => l.error?.message ?? "").some((m) => m.includes("may have landed"))).toBe(
      false,
    );
    expect(await providerWrites(domain)).toBe(writes);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).not.toContain(
      `https://${scope}.preview.example.com/callback`,
    );
  });

  it("the deadlines pass between the claims and the write: caught before it, nothing written", async () => {
    const domain = await knownApplication();
    const clock = new ManualClock();
    const wrapLocks = parentLocks([], {
      after: async () => {
        clock.advance(LONG_PAST_MS);
      },
    });
    const writes = await providerWrites(domain);
    const result = await applyWith({ wrapLocks, clock }, domain, freshPr());
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.error?.code)).toEqual(["LOCK_LOST", "LOCK_LOST", "LOCK_LOST"]);
    expect(await providerWrites(domain)).toBe(writes);
  });
});
