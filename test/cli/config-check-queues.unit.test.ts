/**
 * `sponson config check --wrangler` and the queues a deployment names by its vars (docs/deploy.md,
 * "Resources"): a producer must send to the queue the vars name, each main
 * consumer must park its dead letters, and renamed notification queues are this deployment's own.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../cli/build.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const PRODUCTION = readFileSync(join(ROOT, "examples", "production", "wrangler.toml"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "sponson-check-queues-"));
// The copies sit where docs/deploy.md puts the example: `main` (workers/index.ts) resolves.
symlinkSync(join(ROOT, "workers"), join(dir, "workers"));

beforeAll(async () => {
  await buildCli();
}, 60_000);

type Problem = { path: string; message: string };

/** The queue problems `config check --wrangler` reports for a copy of the production example. */
function check(name: string, text: string): { code: number | null; problems: Problem[] } {
  const path = join(dir, name);
  writeFileSync(path, text);
  const run = spawnSync(
    process.execPath,
    [join(ROOT, "bin", "sponson.mjs"), "config", "check", "--wrangler", path, "--json"],
    { cwd: ROOT, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" } },
  );
  const problems = (JSON.parse(run.stdout) as { problems: Problem[] }).problems;
  return { code: run.status, problems: problems.filter((p) => p.path.startsWith("queues")) };
}

/** Deployment B: its own destroy queue names in [vars], its consumers renamed to match. */
const renamedDestroys = PRODUCTION.replace(
  'SPONSON_DESTROY_QUEUE = "sponson-destroys"\nSPONSON_DEAD_LETTER_QUEUE = "sponson-destroys-dlq"',
  'SPONSON_DESTROY_QUEUE = "b-destroys"\nSPONSON_DEAD_LETTER_QUEUE = "b-destroys-dlq"',
)
  .replace(
    '[[queues.consumers]]\nqueue = "sponson-destroys"\n',
    '[[queues.consumers]]\nqueue = "b-destroys"\n',
  )
  .replace('dead_letter_queue = "sponson-destroys-dlq"', 'dead_letter_queue = "b-destroys-dlq"')
  .replace(
    '[[queues.consumers]]\nqueue = "sponson-destroys-dlq"\n',
    '[[queues.consumers]]\nqueue = "b-destroys-dlq"\n',
  );

describe("sponson config check --wrangler: queue names", () => {
  it("control: deployment B with every destroy queue renamed, producer too, has no queue problem", () => {
    const ok = renamedDestroys.replace(
      '[[queues.producers]]\nbinding = "DESTROY_QUEUE"\nqueue = "sponson-destroys"',
      '[[queues.producers]]\nbinding = "DESTROY_QUEUE"\nqueue = "b-destroys"',
    );
    expect(ok).toContain('queue = "b-destroys"\n\n[[queues.consumers]]');
    expect(check("b-ok.wrangler.toml", ok).problems).toEqual([]);
  });

  it("a producer left on another deployment's queue is reported, naming both queues (exit 1)", () => {
    const run = check("b-producer.wrangler.toml", renamedDestroys);
    expect(run.code).toBe(1);
    expect(run.problems).toEqual([
      {
        path: "queues.producers",
        message: expect.stringMatching(/DESTROY_QUEUE sends to sponson-destroys.*b-destroys/),
      },
    ]);
  });

  it("a main consumer without dead_letter_queue is reported, for destroys and notifications", () => {
    const noDlq = PRODUCTION.replace('dead_letter_queue = "sponson-destroys-dlq"\n', "").replace(
      'dead_letter_queue = "sponson-notifications-dlq"\n',
      "",
    );
    expect(noDlq).not.toContain("dead_letter_queue");
    const run = check("no-dlq.wrangler.toml", noDlq);
    expect(run.code).toBe(1);
    expect(run.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/sponson-destroys has no dead_letter_queue \(sponson-destroys-dlq\)/),
      expect.stringMatching(/sponson-notifications has no dead_letter_queue \(sponson-notifications-dlq\)/),
    ]);
  });

  it("a main consumer parking dead letters on a queue the vars do not name is reported", () => {
    const run = check(
      "wrong-dlq.wrangler.toml",
      PRODUCTION.replace('dead_letter_queue = "sponson-destroys-dlq"', 'dead_letter_queue = "elsewhere"'),
    );
    expect(run.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/sponson-destroys sends its dead letters to elsewhere.*sponson-destroys-dlq/),
    ]);
  });

  it("renamed notification queues, consumers and producer to match, have no queue problem", () => {
    const renamed = PRODUCTION.replace(
      'SPONSON_DEAD_LETTER_QUEUE = "sponson-destroys-dlq"',
      'SPONSON_DEAD_LETTER_QUEUE = "sponson-destroys-dlq"\nSPONSON_NOTIFY_QUEUE = "b-notes"\nSPONSON_NOTIFY_DEAD_LETTER_QUEUE = "b-notes-dlq"',
    ).replaceAll("sponson-notifications", "b-notes");
    expect(renamed).toContain('SPONSON_NOTIFY_QUEUE = "b-notes"');
    const run = check("b-notes.wrangler.toml", renamed);
    expect([run.code, run.problems]).toEqual([0, []]);
  });
});
