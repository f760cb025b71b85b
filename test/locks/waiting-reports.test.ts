/**
 * A queued run says it is waiting (docs/design.md, "Lock answers"): a report a second after its wait
 * starts and one every 15 s, each with the lock, its holder, the run's place, the time waited and
 * what is left of the run's wait budget;
 * none once granted, and none at all for a run granted at once. Under a ManualClock: no real time
 * passes in the test except the object's own calls.
 */

import { env } from "cloudflare:workers";
import { describe, it } from "vitest";
import type { RunOrigin } from "../../shared/schemas/provenance";
import type { Waiting } from "../../shared/schemas/run";
import { lockTarget } from "../../workers/locks/lock-target";
import { ScopeLease } from "../../workers/locks/scope-lock";
import { WAITING_FIRST_REPORT_MS, WAITING_REPORT_MS } from "../../workers/locks/waiting-reports";
import { ManualClock } from "../helpers/clock";
import { freshScopeKey, granted, stub } from "../helpers/locks";

const TTL_MS = 30_000;

const origin = (pullRequest: number, actor: string): RunOrigin => ({
  repositoryId: 186853002,
  repository: "Codertocat/Hello-World",
  scope: `preview/pr-${pullRequest}`,
  provenance: {
    repository: "Codertocat/Hello-World",
    event: "pull_request",
    ref: `refs/pull/${pullRequest}/merge`,
    pullRequest,
    headBranch: null,
    sha: null,
    actor,
    workflow: null,
    runUrl: null,
    declared: false,
  },
});

async function untilQueued(key: string, holder: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await stub(key).read({ key })).waiters.some((w) => w.holder === holder)) return;
  }
  throw new Error(`${holder} never queued on ${key}`);
}

/**
 * Resolves once the next report is scheduled: `count` timers pending (the report's call is a
 * round trip to the object; the next report's timer is armed once it is done).
 */
async function untilScheduled(clock: ManualClock, count: number): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (clock.pending.length >= count) return;
    await scheduler.wait(1);
  }
  throw new Error(`never ${count} timers pending`);
}

describe("waiting reports", () => {
  it("a queued run reports after 1 s and every 15 s: lock, holder, position, waited so far; none after the grant", async ({
    expect,
  }) => {
    const key = freshScopeKey();
    const a = granted(
      await stub(key).acquire({ key, holder: "run-a", ttlMs: TTL_MS, origin: origin(9, "octocat") }),
    );
    const clock = new ManualClock();
    const reports: Waiting[] = [];
    const waiting = ScopeLease.acquire(lockTarget(env, key), "run-b", {
      ttlMs: TTL_MS,
      wait: true,
      waitTimeoutMs: 600_000,
      clock,
      origin: origin(10, "hubot"),
      onWaiting: (r) => reports.push(r),
    });
    await untilQueued(key, "run-b");
    // The first report, and the open call's race against the run's wait deadline.
    expect(clock.pending).toEqual([clock.now() + WAITING_FIRST_REPORT_MS, clock.now() + 600_000]);
    clock.advance(WAITING_FIRST_REPORT_MS);
    await untilScheduled(clock, 2);
    expect(reports).toEqual([
      {
        lock: key,
        identity: null,
        holder: expect.objectContaining({ run: "run-a", pullRequest: 9, actor: "octocat" }),
        position: 1,
        waitedMs: WAITING_FIRST_REPORT_MS,
        // What is left of the run's one wait budget (docs/design.md, "Lease protocol": the run's side).
        budgetLeftMs: 600_000 - WAITING_FIRST_REPORT_MS,
      },
    ]);
    clock.advance(WAITING_REPORT_MS);
    await untilScheduled(clock, 2);
    expect(reports.map((r) => r.waitedMs)).toEqual([
      WAITING_FIRST_REPORT_MS,
      WAITING_FIRST_REPORT_MS + WAITING_REPORT_MS,
    ]);
    expect(reports.map((r) => r.budgetLeftMs)).toEqual([
      600_000 - WAITING_FIRST_REPORT_MS,
      600_000 - WAITING_FIRST_REPORT_MS - WAITING_REPORT_MS,
    ]);

    await stub(key).release({ key, holder: "run-a", token: a.token });
    const lease = await waiting;
    // Only the lease's own renewal is left: the reports and the race stopped with the grant.
    expect(clock.pending).toEqual([clock.now() + TTL_MS / 3]);
    await lease.release();
  });

  it("control: a run granted at once never reports", async ({ expect }) => {
    const key = freshScopeKey();
    const clock = new ManualClock();
    const reports: Waiting[] = [];
    const lease = await ScopeLease.acquire(lockTarget(env, key), "run-a", {
      ttlMs: TTL_MS,
      wait: true,
      clock,
      onWaiting: (r) => reports.push(r),
    });
    expect(clock.pending).toEqual([clock.now() + TTL_MS / 3]);
    clock.advance(WAITING_FIRST_REPORT_MS);
    expect(reports).toEqual([]);
    await lease.release();
  });
});
