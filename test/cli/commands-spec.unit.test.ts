/** The CLI's flag table (cli/commands-spec.ts): one meaning per short flag, help in today's key formats. */
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES, COMMANDS, commandHelp } from "../../cli/commands-spec";

describe("the flag table", () => {
  it("each short flag means one long flag across every command (-r is --repository)", () => {
    const meaning = new Map<string, Set<string>>();
    for (const name of COMMAND_NAMES)
      for (const [long, option] of Object.entries(COMMANDS[name].options))
        if (option.short) meaning.set(option.short, (meaning.get(option.short) ?? new Set()).add(long));
    for (const [short, longs] of meaning) expect([short, [...longs]]).toEqual([short, [[...longs][0]]]);
    expect([...(meaning.get("r") ?? [])]).toEqual(["repository"]);
  });

  it("help shows lock keys as scope:<repository id>/<environment>/<scope> and _locks/<hash>", () => {
    for (const name of ["locks", "unlock", "hold", "unhold"] as const) {
      const help = commandHelp(name);
      expect(help).toContain("scope:<repository id>/<environment>/<scope>");
      expect(help).toContain("_locks/<32 hex>");
      expect(help).not.toMatch(/scope:[a-z]+\/pr-/);
    }
  });
});
