/**
 * `sponson adopt` (docs/cli.md, "adopt") on the local door's demo: the demo tenant's `legacy-app`
 * had preview URLs of pull requests 71 (open), 72 (closed) and 73 (open) and one added by hand
 * before the service; the emulated GitHub knows those pull requests (dev/emulators/github/demo.ts).
 */
import { beforeAll, describe, it } from "vitest";
import { DEMO_GITHUB_TOKEN } from "../../dev/emulators/github/demo";
import { adoptionResultSchema } from "../../shared/schemas/adoption";
import { mintToken, sponson } from "./helpers";

const ARGS = [
  "adopt",
  "--connection",
  "demo-auth0",
  "--op",
  "auth0.callbackUrl",
  "--param",
  "client=legacy-app",
  "--pattern",
  "https://pr-{pr}.preview.example.com/callback",
];

let admin: Record<string, string>;
beforeAll(async () => {
  admin = { SPONSON_TOKEN: await mintToken("admin"), SPONSON_GITHUB_TOKEN: DEMO_GITHUB_TOKEN };
});

describe("sponson adopt", () => {
  it("shows the table without writing, then --apply --remove-closed adopts the open ones and removes the closed one", async ({
    expect,
  }) => {
    const dry = await sponson(ARGS, admin);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^ENTRY +SCOPE +PULL REQUEST +OUTCOME$/m);
    expect(dry.stdout).toMatch(
      /^https:\/\/pr-71\.preview\.example\.com\/callback +preview\/pr-71 +#71 open +would adopt$/m,
    );
    expect(dry.stdout).toMatch(
      /^https:\/\/pr-72\.preview\.example\.com\/callback +preview\/pr-72 +#72 closed +stays foreign: pull request closed: --remove-closed removes it$/m,
    );
    expect(dry.stdout).toMatch(
      /^http:\/\/localhost:3000\/callback +- +- +stays foreign: no pattern matches$/m,
    );
    expect(dry.stdout).toContain(
      "dry run: 2 would be adopted, 0 adopted and removed, 2 stay. Nothing was written",
    );

    const applied = await sponson([...ARGS, "--apply", "--remove-closed", "--json"], admin);
    expect(applied.code).toBe(0);
    const result = adoptionResultSchema.parse(JSON.parse(applied.stdout));
    expect(result.counts).toMatchObject({ adopted: 2, removed: 1, kept: 1, failed: 0 });
    expect(JSON.stringify(result)).not.toContain(DEMO_GITHUB_TOKEN);

    const ledger = await sponson(["ledger", "--scope", "pr-71"], admin);
    expect(ledger.stdout).toContain("https://pr-71.preview.example.com/callback");
  });

  it("--remove-closed without a GitHub token exits 2 before anything is sent; a viewer token is refused (exit 2)", async ({
    expect,
  }) => {
    const noToken = await sponson([...ARGS, "--apply", "--remove-closed"], {
      SPONSON_TOKEN: admin.SPONSON_TOKEN,
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("--remove-closed needs a GitHub token");

    const viewer = await sponson(ARGS, { SPONSON_TOKEN: await mintToken("viewer") });
    expect(viewer.code).toBe(2);
    expect(viewer.stderr).toContain("FORBIDDEN");
  });
});
