/**
 * Control cases of the shared-entry property (./shared-histories.test.ts): the same runner and the
 * same end-state check, on an engine with ownership (or parent locks) switched off — the engine's
 * test-only controls — must report the loss the property exists to catch. Otherwise a check that can never
 * fail would pass there too.
 *   - A fixed history on every provider: two scopes want `shared-a`, the first is destroyed, and
 *     the entry the second still wants is gone.
 *   - The same with parent locks off (ownership lives under the parent lease, so it goes too).
 *   - Random histories with ownership off: fast-check finds one that loses an entry.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FOREIGN_HOSTS, type History, historyArb, hostOf, MAX_SCOPES } from "./shared-model";
import { runSharedHistory, type SharedControls, type Tally, verdictProblems } from "./shared-runner";
import { PROVIDER_NAMES, type ProviderName, SHARED_OBJECTS } from "./shared-worlds";

const SCOPE_BASE = 100_000_000 + Math.floor(Math.random() * 800_000_000);
let worlds = 0;
function scopeNames(): (i: number) => string {
  const base = SCOPE_BASE + worlds++ * MAX_SCOPES;
  return (i) => `pr-${base + i}`;
}

const NONE = { kind: "none" } as const;
/** pr-a and pr-b both want shared-a; pr-a goes; pr-b still wants shared-a. */
const LOSING: History = {
  groups: [
    [{ action: "apply", scope: 0, items: ["shared-a", "own-a"], fault: NONE }],
    [{ action: "apply", scope: 1, items: ["shared-a", "foreign-a", "own-a"], fault: NONE }],
    [{ action: "destroy", scope: 0, fault: NONE }],
  ],
};

const tally = (): Tally => ({ steps: 0, concurrent: 0, crashes: 0, shared: 0, released: 0 });

async function run(provider: ProviderName, history: History, controls: SharedControls, strict: boolean) {
  const object = await SHARED_OBJECTS[provider](FOREIGN_HOSTS);
  const world = { object, scopeName: scopeNames(), controls, strict };
  return { object, verdict: await runSharedHistory(world, history, tally()) };
}

describe("control: the shared-entry check fails when ownership is off", () => {
  it.each(PROVIDER_NAMES)(
    "%s: with ownership the fixed history keeps shared-a; without it shared-a is lost",
    async (provider) => {
      const kept = await run(provider, LOSING, { ownership: true, parentLocks: true }, true);
      expect(verdictProblems(kept.verdict)).toEqual([]);
      expect(kept.verdict.have).toContain(kept.object.entry(hostOf("shared-a", "")));

      const { object, verdict } = await run(provider, LOSING, { ownership: false, parentLocks: true }, false);
      expect(verdict.lost).toEqual([object.entry(hostOf("shared-a", ""))]);
      expect(verdict.orphans).toEqual([]);
    },
  );

  it.each(["auth0", "kinde", "s3"] as const)(
    "%s: with parent locks off the fixed history loses shared-a too",
    async (provider) => {
      const { object, verdict } = await run(provider, LOSING, { ownership: true, parentLocks: false }, false);
      expect(verdict.lost).toEqual([object.entry(hostOf("shared-a", ""))]);
    },
  );

  it("random histories with ownership off: fast-check finds one that loses an entry", {
    timeout: 300_000,
  }, async () => {
    let histories = 0;
    let problems: string[] = [];
    const result = await fc.check(
      fc.asyncProperty(historyArb, async (history) => {
        histories += 1;
        const { verdict } = await run("auth0", history, { ownership: false, parentLocks: true }, false);
        problems = verdictProblems(verdict);
        return problems.length === 0;
      }),
      { numRuns: 60, endOnFailure: true },
    );
    expect(result.failed).toBe(true);
    expect(problems.filter((p) => p.startsWith("lost "))).not.toEqual([]);
    console.info(
      `shared-entry control: with ownership off, random history ${histories} failed the check: ${problems.join("; ")}`,
    );
  });
});
