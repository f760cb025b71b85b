/**
 * GCS `412`: re-read and decide again (docs/design.md, "Lease protocol", fencing). The emulator
 * holds the run's PATCH while someone outside Sponson changes the bucket; the write then meets
 * `412 conditionNotMet`, and every decision of the group — presence and ownership outcomes
 * included — is made again from the fresh rules, never only the edits re-applied.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import { GCS_MAX_PRECONDITION_ATTEMPTS } from "../../workers/adapters/gcs";
import { bucketWithCors } from "../adapters/gcs/gcs-bucket";
import { connectionOf } from "../helpers/connections";
import { configureHost, emulatorStub } from "../helpers/emulators";
import { GCS_HOST, gcsBucket, seedBucket } from "../helpers/emulators-gcs";
import { freshPr, receipt } from "../helpers/engine";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const originsOf = (rule: unknown) => ((rule as { origin?: string[] } | undefined)?.origin ?? []) as string[];

let n = 0;
async function world(existing: (scope: string) => string[]) {
  const scope = freshPr();
  const b = await bucketWithCors([{ origin: existing(scope), method: ["GET"] }]);
  n += 1;
  const connection = connectionOf(`redecide-gcs-${n}`, {
    type: "gcs",
    serviceAccountKey: { secret: "REDECIDE_GCS_KEY" },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "web",
        op: "gcs.corsOrigin",
        connection,
        params: { bucket: b.bucket, rule: "#0", origin: web(scope) },
      },
      {
        id: "api",
        op: "gcs.corsOrigin",
        connection,
        params: { bucket: b.bucket, rule: "#0", origin: api(scope) },
      },
    ],
  };
  const engine = testEngine({ bindings: { REDECIDE_GCS_KEY: b.account.keyJson } });
  const apply = () =>
    engine.apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan, wait: true });
  return { scope, bucket: b.bucket, apply, origins: async () => originsOf((await b.stored())?.cors?.[0]) };
}

const web = (scope: string) => `https://${scope}.preview.example.com`;
const api = (scope: string) => `https://${scope}-api.preview.example.com`;

/** Resolves once the emulator holds `count` writes (reads the emulator; no sleeps). */
async function untilHeldWrites(count: number): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if ((await emulatorStub(GCS_HOST).stats()).heldWrites >= count) return;
    await scheduler.wait(1);
  }
  throw new Error(`no ${count} held write(s)`);
}

/** Someone outside Sponson rewrites rule #0 (bumping the metageneration, as GCS does). */
async function rewriteRule(bucket: string, origins: (now: string[]) => string[]) {
  const now = await gcsBucket(bucket);
  const stored = now as NonNullable<typeof now>;
  const rule = { ...(stored.cors?.[0] as object), origin: origins(originsOf(stored.cors?.[0])) };
  await seedBucket(bucket, { ...stored, cors: [rule], metageneration: stored.metageneration + 1 });
}

describe("a GCS write that meets 412 decides again from the fresh bucket", () => {
  it("an origin the run joined is removed before its write lands: the run creates it, nothing is reported that is not there", async () => {
    const w = await world((scope) => ["https://app.example.com", web(scope)]);
    await configureHost(GCS_HOST, { holdWrites: 1 });
    const running = w.apply();
    await untilHeldWrites(1);
    // Between the run's read and its write, the origin it found (and joined) is taken away.
    await rewriteRule(w.bucket, (now) => now.filter((o) => o !== web(w.scope)));
    await emulatorStub(GCS_HOST).releaseWrites();
    const result = await running;
    await configureHost(GCS_HOST, {});

    expect(result.run.status, JSON.stringify(result.lines.map((l) => l.error))).toBe("succeeded");
    expect((await w.origins()).sort()).toEqual(
      ["https://app.example.com", api(w.scope), web(w.scope)].sort(),
    );
    expect(result.lines.map((l) => [l.id, l.result])).toEqual([
      ["web", "created"],
      ["api", "created"],
    ]);
    const ledger = (await receipt("preview", w.scope)).ledger;
    expect(ledger.map((e) => [e.line, e.holding ?? "created"]).sort()).toEqual([
      ["api", "created"],
      ["web", "created"],
    ]);
  });

  it("an origin the run would write is added by someone else first: it is decided again as found (not this run's creation) and only the rest is written", async () => {
    const w = await world(() => ["https://app.example.com"]);
    await configureHost(GCS_HOST, { holdWrites: 1 });
    const running = w.apply();
    await untilHeldWrites(1);
    await rewriteRule(w.bucket, (now) => [...now, web(w.scope)]);
    await emulatorStub(GCS_HOST).releaseWrites();
    const result = await running;
    await configureHost(GCS_HOST, {});

    expect(result.run.status).toBe("succeeded");
    expect((await w.origins()).sort()).toEqual(
      ["https://app.example.com", api(w.scope), web(w.scope)].sort(),
    );
    const ledger = (await receipt("preview", w.scope)).ledger;
    // Decided again: the web origin was there before this run wrote it, so it is not its creation.
    expect(ledger.find((e) => e.line === "web")?.holding).not.toBe("created");
    expect(ledger.find((e) => e.line === "api")?.holding ?? "created").toBe("created");
  });

  it("a bucket that changes before every write fails CONCURRENT_MODIFICATION after bounded attempts, nothing overwritten", async () => {
    const w = await world(() => ["https://app.example.com"]);
    await configureHost(GCS_HOST, { holdWrites: GCS_MAX_PRECONDITION_ATTEMPTS });
    const running = w.apply();
    for (let i = 1; i <= GCS_MAX_PRECONDITION_ATTEMPTS; i++) {
      await untilHeldWrites(1);
      await rewriteRule(w.bucket, (now) => [
        ...now.filter((o) => !o.includes("other-")),
        `https://other-${i}.example.com`,
      ]);
      await emulatorStub(GCS_HOST).releaseWrites();
    }
    const result = await running;
    await configureHost(GCS_HOST, {});
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.error?.code)).toContain("CONCURRENT_MODIFICATION");
    expect(await w.origins()).toEqual([
      "https://app.example.com",
      `https://other-${GCS_MAX_PRECONDITION_ATTEMPTS}.example.com`,
    ]);
  });
});
