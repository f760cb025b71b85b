/**
 * Eviction where the cap counts whole rules (docs/design.md, "Evicting stale scopes"): on an S3
 * bucket a rule goes only when its last origin does, so a stale scope whose origin shares a rule
 * with a live scope frees nothing. Only the scopes whose removals the fit needs are evicted; one
 * that frees nothing is released untouched.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { s3BucketWithCors } from "../../adapters/s3/s3-bucket";
import { registerConnection } from "../../helpers/connections";
import { S3_REGION } from "../../helpers/emulators-s3";
import { freshPr } from "../../helpers/engine";
import { applyRequest, EVICTING, receiptOf, scopeLockFree, setPullRequest } from "../../helpers/eviction";
import { testEngine } from "../../helpers/test-engine";

const SECRET = "EVICT_S3_RULES";
const originOf = (scope: string) => `https://${scope}.example.com`;

describe("eviction on s3.corsOrigin, the cap counting rules", () => {
  it("rule A held by an older closed scope and a live one, rule B by a closed scope alone: only rule B's scope is evicted", async () => {
    const bucket = await s3BucketWithCors([]);
    const connection = registerConnection(`s3-evict-rules-${bucket.bucket}`, {
      type: "s3",
      config: { region: S3_REGION, accessKeyId: bucket.accessKeyId },
      secrets: { secretAccessKey: SECRET },
      capacity: { "s3.corsOrigin": 2 },
    });
    const inRule = (rule: string): Plan => ({
      version: 2,
      lines: [
        {
          id: "cors",
          op: "s3.corsOrigin",
          connection,
          params: { bucket: bucket.bucket, rule, origin: "https://{scope}.example.com" },
        },
      ],
    });
    const engine = () =>
      testEngine({ bindings: { [SECRET]: bucket.secret, SPONSON_ENVIRONMENTS: EVICTING } });
    const rules = async () =>
      Object.fromEntries(((await bucket.stored())?.rules ?? []).map((r) => [r.ID, r.AllowedOrigin]));
    const [older, live, closed, next] = [freshPr(), freshPr(), freshPr(), freshPr()];
    for (const [scope, rule] of [
      [older, "A"],
      [live, "A"],
      [closed, "B"],
    ] as const)
      expect((await engine().apply(applyRequest(inRule(rule), scope))).run.status).toBe("succeeded");
    await setPullRequest(older, "closed");
    await setPullRequest(closed, "closed");
    expect(await rules()).toEqual({ A: [originOf(older), originOf(live)], B: [originOf(closed)] });

    const result = await engine().apply(applyRequest(inRule("N"), next));
    expect(result.run.status).toBe("succeeded");
    // Rule A keeps the older scope's origin: removing it frees no rule.
    expect(await rules()).toEqual({ A: [originOf(older), originOf(live)], N: [originOf(next)] });
    expect((await receiptOf(older)).ledger.map((e) => e.key)).toEqual([originOf(older)]);
    expect((await receiptOf(older)).evictions).toBeUndefined();
    expect((await receiptOf(closed)).ledger).toEqual([]);
    expect(await scopeLockFree(older)).toBe(true);
  });
});
