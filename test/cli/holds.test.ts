/**
 * Holds from the CLI (docs/cli.md, "hold" and "unhold"): an admin holds a scope's lock with a
 * reason and a duration, runs on that scope are refused naming the hold and what to do, `locks`
 * shows it, and `unhold` lifts it. Only an admin token may do either.
 */
import { beforeAll, describe, it } from "vitest";
import { parseDuration } from "../../cli/commands/hold";
import { holdOutcomeSchema } from "../../shared/schemas/hold";
import { lockStateSchema } from "../../shared/schemas/lock";
import { EXAMPLE_PLAN, freshPr, mintToken, sponson } from "./helpers";

let admin: Record<string, string>;
let viewer: Record<string, string>;
beforeAll(async () => {
  admin = { SPONSON_TOKEN: await mintToken("admin") };
  viewer = { SPONSON_TOKEN: await mintToken("viewer") };
});

describe("--ttl durations", () => {
  it.for([
    ["3600", 3600],
    ["90s", 90],
    ["30m", 1800],
    ["2h", 7200],
    ["1d", 86400],
  ] as const)("%s is %i seconds", ([text, seconds], { expect }) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.for(["", "soon", "1.5h", "-5m", "2w", "h"])("%j is refused", (text, { expect }) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe("sponson hold and unhold", () => {
  it("holds a scope: the next apply is refused naming the hold and how to lift it; unhold lets it run", async ({
    expect,
  }) => {
    const scope = freshPr();
    const key = `scope:186853002/preview/${scope}`;
    const held = await sponson(["hold", key, "--reason", "IdP migration", "--ttl", "2h"], admin);
    expect(held.code).toBe(0);
    expect(held.stdout).toMatch(new RegExp(`^held ${key} until \\S+Z: IdP migration$`, "m"));

    const shown = await sponson(["locks", key], viewer);
    expect(shown.stdout).toMatch(/^on hold until \S+Z, set by cli-test-admin: IdP migration$/m);
    const json = lockStateSchema.parse(JSON.parse((await sponson(["locks", key, "--json"], viewer)).stdout));
    expect(json.hold).toMatchObject({ by: "cli-test-admin", reason: "IdP migration" });
    expect((await sponson(["locks"], viewer)).stdout).toMatch(
      new RegExp(`^${key} +scope .*\\(on hold\\)`, "m"),
    );

    const refused = await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope], admin);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("LOCK_HELD");
    expect(refused.stderr).toContain("IdP migration");
    expect(refused.stderr).toContain(`sponson unhold ${key}`);

    const lifted = await sponson(["unhold", key, "--json"], admin);
    expect(lifted.code).toBe(0);
    expect(holdOutcomeSchema.parse(JSON.parse(lifted.stdout))).toMatchObject({
      hold: null,
      previous: { reason: "IdP migration" },
    });
    expect((await sponson(["unhold", key], admin)).stdout).toBe(`no hold on ${key}\n`);
    const applied = await sponson(["apply", "--plan", EXAMPLE_PLAN, "--scope", scope], admin);
    expect(applied.code).toBe(0);
  });

  it("a viewer may neither hold nor unhold (exit 2, FORBIDDEN); usage mistakes exit 2 before anything is sent", async ({
    expect,
  }) => {
    const key = `scope:186853002/preview/${freshPr()}`;
    const forbidden = await sponson(["hold", key, "--reason", "mine", "--ttl", "1h"], viewer);
    expect(forbidden.code).toBe(2);
    expect(forbidden.stderr).toContain("sponson: FORBIDDEN");
    expect((await sponson(["unhold", key], viewer)).code).toBe(2);
    for (const args of [
      ["hold", key, "--ttl", "1h"],
      ["hold", key, "--reason", "r"],
      ["hold", key, "--reason", "r", "--ttl", "soon"],
      ["hold", "--reason", "r", "--ttl", "1h"],
      ["unhold"],
    ]) {
      const { code, stderr } = await sponson(args, admin);
      expect({ args, code }).toEqual({ args, code: 2 });
      expect(stderr).toMatch(/sponson hold|sponson unhold|--reason|--ttl/);
    }
    expect(
      lockStateSchema.parse(JSON.parse((await sponson(["locks", key, "--json"], viewer)).stdout)).hold,
    ).toBeUndefined();
  });
});
