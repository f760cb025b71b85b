/**
 * Locks from the CLI: a held parent lock fails an apply (exit 1), `locks` shows it, an apply with
 * `--wait` streams its first line and queues behind it, and an admin's `unlock` lets it finish.
 */
import { beforeAll, describe, it } from "vitest";
import { lockStateSchema } from "../../shared/schemas/lock";
import { lockListSchema } from "../../shared/schemas/responses";
import { runResultSchema } from "../../shared/schemas/run";
import {
  type CliResult,
  DEMO_PARENT,
  EXAMPLE_PLAN,
  freshPr,
  holdParentLock,
  mintToken,
  sponson,
  start,
} from "./helpers";

let admin: Record<string, string>;
let viewer: Record<string, string>;
beforeAll(async () => {
  admin = { SPONSON_TOKEN: await mintToken("admin") };
  viewer = { SPONSON_TOKEN: await mintToken("viewer") };
});

/** Polls `sponson locks <key> --json` until `ready` holds: waiting on an observable state, not a clock. */
async function lockUntil(key: string, ready: (lock: ReturnType<typeof lockStateSchema.parse>) => boolean) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const lock = lockStateSchema.parse(JSON.parse((await sponson(["locks", key, "--json"], viewer)).stdout));
    if (ready(lock)) return lock;
  }
  throw new Error(`lock ${key} never reached the expected state`);
}

describe("sponson locks and unlock", () => {
  it("an apply while another run holds the parent lock fails with LOCK_HELD: exit 1", async ({ expect }) => {
    const { key } = await holdParentLock("stuck-run-a", 600);
    try {
      const { code, stdout, stderr } = await sponson(
        ["apply", "--plan", EXAMPLE_PLAN, "--scope", freshPr(), "--json"],
        admin,
      );
      expect(code).toBe(1);
      // One conflict, said once (it was said once per plan line and again in the outcome: four times).
      expect(stderr.split("is held by stuck-run-a").length - 1).toBe(1);
      expect(stderr).toContain(`sponson unlock ${key} --reason`);
      const result = runResultSchema.parse(JSON.parse(stdout));
      expect(result.run.status).toBe("failed");
      expect(result.run.error).toMatchObject({
        code: "LOCK_HELD",
        detail: { lock: key, holder: { run: "stuck-run-a" } },
      });

      const listed = await sponson(["locks"], viewer);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(
        /^KEY +KIND +IDENTITY +HOLDER +RUN +SINCE +EXPIRES IN +WAITERS +CI RUN$/m,
      );
      expect(listed.stdout).toMatch(
        new RegExp(`^${key} +parent +${DEMO_PARENT} +stuck-run-a +stuck-run-a +\\S+ +\\d+s +0 +-$`, "m"),
      );
      const json = lockListSchema.parse(JSON.parse((await sponson(["locks", "--json"], viewer)).stdout));
      expect(json.locks).toContainEqual(
        expect.objectContaining({ key, kind: "parent", holder: "stuck-run-a", held: true }),
      );
    } finally {
      await sponson(["unlock", key, "--reason", "test cleanup"], admin);
    }
  });

  it("apply --wait streams as it happens, queues behind the holder, and finishes once an admin unlocks", async ({
    expect,
  }) => {
    const { key } = await holdParentLock("stuck-run-b", 600);
    const scope = freshPr();
    const waiting = start(
      ["apply", "--plan", EXAMPLE_PLAN, "--scope", scope, "--wait-timeout", "120"],
      admin,
    );
    let early = "";
    waiting.stdout?.on("data", (d: Buffer) => {
      early += d.toString();
    });
    const lock = await lockUntil(key, (l) => l.waiters.length === 1);
    // The run's first line is out while it still waits: the CLI prints as the run happens.
    expect(early).toMatch(
      // …and, once it has waited a second, its waiting lines.
      new RegExp(
        `^apply preview/${scope} in Codertocat/Hello-World \\(run (run-[a-z0-9-]+)\\)\\n(  waiting for .* — held by stuck-run-b, position 1, \\d+ s\\n)*$`,
      ),
    );
    expect(lock.waiters[0]?.holder).toBe(/\(run (run-[a-z0-9-]+)\)/.exec(early)?.[1]);
    // A second into its wait it says so, naming the lock, its holder and its place.
    const said = await new Promise<string>((resolve) => {
      const check = () => (/^ {2}waiting for .*$/m.test(early) ? resolve(early) : undefined);
      waiting.stdout?.on("data", check);
      check();
    });
    expect(said).toMatch(
      new RegExp(
        `^  waiting for ${DEMO_PARENT} — held by stuck-run-b, position 1, \\d+ s, \\d+ s of the wait budget left$`,
        "m",
      ),
    );

    const shown = await sponson(["locks", key], viewer);
    expect(shown.stdout).toContain(`held by stuck-run-b since`);
    expect(shown.stdout).toMatch(/^waiters: run-/m);

    const refused = await sponson(["unlock", key, "--reason", "not mine to release"], viewer);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("sponson: FORBIDDEN");

    const unlocked = await sponson(["unlock", key, "--reason", "runner died mid-apply", "--json"], admin);
    expect(unlocked.code).toBe(0);
    expect(JSON.parse(unlocked.stdout)).toMatchObject({ released: true, reason: "released", lock: { key } });

    const done: CliResult = await waiting.done;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^succeeded in .*: 3 created$/m);
    const history = await lockUntil(key, () => true);
    expect(history.history).toContainEqual(
      expect.objectContaining({
        transition: "force-released",
        holder: "stuck-run-b",
        note: expect.stringContaining("runner died mid-apply"),
      }),
    );
  });

  it("unlock of a lock nobody holds says so and exits 0; a key that is no lock key exits 1", async ({
    expect,
  }) => {
    const free = await sponson(
      ["unlock", `scope:186853002/preview/${freshPr()}`, "--reason", "cleanup"],
      admin,
    );
    expect(free.code).toBe(0);
    expect(free.stdout).toMatch(/was not held \(not-held\)/);
    const bogus = await sponson(["locks", "nope"], viewer);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toContain("sponson: NOT_FOUND");
  });
});
