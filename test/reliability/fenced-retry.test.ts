/**
 * Fencing covers retries: a provider write retried after a backoff that outlived the holder's
 * deadline is never sent, and the line fails with LOCK_LOST rather than a provider error.
 */
import { describe, expect, it } from "vitest";
import { auth0Client, configureHost, emulatorStub } from "../helpers/emulators";
import { APP_CLIENT } from "../helpers/plans";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { freshWorld, reliabilityEngine, StepClock } from "./harness";

/** A clock whose retry waits each take longer than the lease TTL, as a stalled isolate would. */
class StallingClock extends StepClock {
  override async sleep(ms: number): Promise<void> {
    await super.sleep(ms);
    this.jump(60_000);
  }
}

describe("fenced retries", () => {
  it("a write retried after the deadline passed is not sent; the line fails with LOCK_LOST", async () => {
    const { domain, scope, plan } = await freshWorld();
    plan.lines = plan.lines.slice(0, 1);
    await configureHost(domain, { failures: [{ status: 503, count: 1, on: "write" }] });
    const result = await reliabilityEngine({ clock: new StallingClock() }).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(result.run.status).toBe("failed");
    expect(result.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect((await emulatorStub(domain).stats()).writes).toBe(0);
    expect((await auth0Client(domain, APP_CLIENT))?.callbacks).toEqual(["https://app.example.com/callback"]);
  });
});
