/**
 * A GCS PATCH whose answer is lost (docs/design.md, "Lease protocol", fencing): the bucket took the
 * write, the connection broke before its answer came back. The retry carries the same
 * `ifMetagenerationMatch` and meets `412` — refused by the run's own write. That 412 is no
 * refusal: the first attempt may have landed, so the outcome is unknown (the parent lease, still
 * held, ends by a quiet release; the intent stays), and recovery resolves it as the scope's own: never `foreign`,
 * which a destroy would only let go of, leaving the origin on the bucket for good. The lost answer is the emulator's knob
 * `loseWriteAnswers` (applied, then a network error).
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { parentLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { gcsCorsIdentity } from "../../workers/adapters/gcs";
import { bucketWithCors } from "../adapters/gcs/gcs-bucket";
import { connectionOf } from "../helpers/connections";
import { configureHost } from "../helpers/emulators";
import { GCS_HOST } from "../helpers/emulators-gcs";
import { durableIntents, freshPr, receipt } from "../helpers/engine";
import { endLockDelay, stub as lock, rawStub } from "../helpers/locks";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

const originsOf = (rule: unknown) => ((rule as { origin?: string[] } | undefined)?.origin ?? []) as string[];
const OTHER = "https://app.example.com";

afterEach(async () => {
  await configureHost(GCS_HOST, {});
});

describe("a GCS write whose answer is lost", () => {
  it("the retry's 412 is an unknown outcome, not a refusal: the origin ends as the scope's own and a destroy removes it", async () => {
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const b = await bucketWithCors([{ origin: [OTHER], method: ["GET"] }]);
    const connection = connectionOf(`lost-answer-gcs-${scope}`, {
      type: "gcs",
      serviceAccountKey: { secret: "LOST_ANSWER_GCS_KEY" },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        { id: "web", op: "gcs.corsOrigin", connection, params: { bucket: b.bucket, rule: "#0", origin } },
      ],
    };
    const engine = testEngine({ bindings: { LOST_ANSWER_GCS_KEY: b.account.keyJson } });
    const address = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, wait: true };
    const key = await parentLockKey(gcsCorsIdentity(b.bucket), new SecretRegistry());

    await configureHost(GCS_HOST, { loseWriteAnswers: 1 });
    const applied = await engine.apply({ ...address, plan });
    await configureHost(GCS_HOST, {});

    // The write landed once; the 412 that followed refused nothing but the run's own retry.
    expect(originsOf((await b.stored())?.cors?.[0])).toEqual([OTHER, origin]);
    expect(applied.lines[0]?.result).not.toBe("foreign");
    expect(applied.run.status).toBe("failed");
    expect(applied.lines[0]?.error?.code).toBe("LOCK_LOST");
    expect(applied.lines[0]?.error?.message).toContain("may have landed");
    // Released quietly: a late landing is covered by the lock-delay after the release.
    expect((await lock(key).read({ key })).history.at(-1)).toMatchObject({
      transition: "released",
      note: expect.stringMatching(/may still land/),
    });
    expect((await durableIntents("preview", scope)).map((i) => i.key)).toEqual([origin]);

    // The lock-delay passes; recovery undoes the failed run's create, which only the scope's own
    // origin allows (a foreign one would only be let go, and stay on the bucket for good).
    await endLockDelay(key);
    await runDurableObjectAlarm(rawStub(key));
    expect((await engine.recover(address)).run.status).toBe("succeeded");
    expect(await durableIntents("preview", scope)).toEqual([]);
    expect(originsOf((await b.stored())?.cors?.[0])).toEqual([OTHER]);

    // The next apply creates it as its own, and a destroy removes it.
    const again = await engine.apply({ ...address, plan });
    expect(again.lines.map((l) => l.result)).toEqual(["created"]);
    expect((await receipt("preview", scope)).ledger.map((e) => e.holding ?? "created")).toEqual(["created"]);
    const destroyed = await engine.destroy(address);
    expect(destroyed.run.status).toBe("succeeded");
    expect(destroyed.lines.map((l) => l.result)).toEqual(["removed"]);
    expect(originsOf((await b.stored())?.cors?.[0])).toEqual([OTHER]);
  });
});
