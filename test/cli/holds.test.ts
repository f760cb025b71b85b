/**
 * Holds from the CLI (docs/cli.md, "hold" and "unhold"): an admin holds a scope's lock with a
 * reason and a duration, runs on that scope are refused naming the hold and what to do, `locks`
 * shows it, and `unhold` lifts it. Only an admin token may do either.
 */
import { beforeAll, describe, it } from "vitest";
import { parseDuration } from "../../cli/commands/hold";
import { holdOutcomeSchema } from "../../shared/schemas/hold";
import { lockStateSchema } from "../../shared/schemas/lock";
import { DEMO_PARENT, EXAMPLE_PLAN, freshPr, holdParentLock, mintToken, sponson } from "./helpers";

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

describe("a lock named by its object's identity", () => {
  it("hold, locks, unhold and unlock take `auth0:…:client:…`, and print the lock key it names", async ({
    expect,
  }) => {
    const keyOf = /\((_locks\/[0-9a-f]{32})\)/;
    try {
      const held = await sponson(
        ["hold", DEMO_PARENT, "--reason", "rotating the client", "--ttl", "10m"],
        admin,
      );
      expect(held.stderr).toBe("");
      expect(held.code).toBe(0);
      expect(held.stdout).toMatch(
        new RegExp(`^held ${DEMO_PARENT} \\(_locks/[0-9a-f]{32}\\) until \\S+Z: rotating the client$`, "m"),
      );
      const key = keyOf.exec(held.stdout)?.[1] ?? "";
      const shown = lockStateSchema.parse(
        JSON.parse((await sponson(["locks", DEMO_PARENT, "--json"], viewer)).stdout),
      );
      expect(shown).toMatchObject({ key, hold: { reason: "rotating the client" } });
    } finally {
      const lifted = await sponson(["unhold", DEMO_PARENT], admin);
      expect(lifted.code).toBe(0);
      expect(lifted.stdout).toMatch(new RegExp(`^lifted the hold on ${DEMO_PARENT} \\(_locks/`, "m"));
    }
    const stuck = await holdParentLock("run-stuck-identity", 60);
    const released = await sponson(["unlock", DEMO_PARENT, "--reason", "stuck run"], admin);
    expect(released.code).toBe(0);
    expect(released.stdout).toBe(`released ${DEMO_PARENT} (${stuck.key})\n`);
  });

  it("an identity no run has locked yet is held all the same, with a note to check it", async ({
    expect,
  }) => {
    const identity = `auth0:nobody-${freshPr()}.example.com:client:typo-app`;
    const held = await sponson(["hold", identity, "--reason", "check", "--ttl", "1m"], admin);
    expect(held.code).toBe(0);
    expect(held.stderr).toContain(`note: no run has locked ${identity} yet`);
    expect((await sponson(["unhold", identity], admin)).code).toBe(0);
  });
});
