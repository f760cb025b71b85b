/**
 * A destroy or rollback of a scope that has no receipt says so (docs/design.md, "A scope with no
 * receipt"): 200, a succeeded run marked `noReceipt` with a warning, and nothing written — so a
 * mistyped scope (`destroy --scope pr-999`) is visible. A queued destroy of a pull request that
 * never applied stays a quiet success.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../dev/entry/dev-env";
import type { RunResult } from "../../shared/schemas/run";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { scopeStateClient } from "../../workers/scope-state/scope-state-client";
import { engineDestroyRunner } from "../../workers/wiring/background";
import { apply, call, testApp } from "../helpers/app";
import { testEnv } from "../helpers/connections";
import { freshAuth0Domain } from "../helpers/emulators";
import { freshPr } from "../helpers/engine";
import { previewPlan, seedTenant } from "../helpers/plans";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";

const app = testApp();

const stored = (scope: string) => new R2ReceiptStore(env.RECEIPTS).read(scopeAddress("preview", scope));

describe("a scope with no receipt", () => {
  it.each([
    ["destroy", {}],
    ["rollback", {}],
    ["rollback", { runId: "run-nope" }],
  ] as const)(
    "%s %j answers 200 with a warning that the scope has no receipt, and writes nothing",
    async (action, body) => {
      const scope = freshPr();
      const res = await call(app, "POST", `/v1/scopes/preview/${scope}/${action}`, body);
      expect(res.status).toBe(200);
      const result = (await res.json()) as RunResult;
      expect(result.run).toMatchObject({ status: "succeeded", noReceipt: true });
      expect(result.warnings).toEqual([
        `scope preview/${scope} has no receipt: nothing was applied to it, or it was destroyed already (is the scope name right?)`,
      ]);
      expect(result.lines).toEqual([]);
      expect((await stored(scope)).etag).toBeNull();
    },
  );

  it("control: a destroy of a scope that has one removes its entries and is not marked", async () => {
    const domain = freshAuth0Domain("nr");
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    expect((await stored(scope)).etag).not.toBeNull();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/destroy`, {});
    const result = (await res.json()) as RunResult;
    expect(result.run.status).toBe("succeeded");
    expect(result.run.noReceipt).toBeUndefined();
    expect(result.lines.map((l) => l.result)).toEqual(["removed", "removed", "removed"]);
    // Removing everything and deleting the receipt is what a destroy is for: no warning.
    expect(result.warnings).toEqual([]);
    expect((await stored(scope)).etag).toBeNull();
  });

  it("control: a rollback naming a run a scope with a receipt never had is still 404", async () => {
    const domain = freshAuth0Domain("nr");
    await seedTenant(domain);
    const scope = freshPr();
    await apply(app, "preview", scope, previewPlan(domain));
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/rollback`, { runId: "run-nope" });
    expect(res.status).toBe(404);
  });

  it("a queued destroy of a closed pull request that never applied is a quiet success", async () => {
    const scope = freshPr();
    const revision = 1_700_000_000_000;
    await scopeStateClient(env, DEFAULT_REPOSITORY.id, scope).applyEvent({
      status: "closed",
      revision,
      deliveryId: crypto.randomUUID(),
    });
    const outcome = await engineDestroyRunner(emulatorTransport)(testEnv(env), {
      repositoryId: DEFAULT_REPOSITORY.id,
      environment: "preview",
      scope,
      revision,
      deliveryId: crypto.randomUUID(),
    });
    expect(outcome.outcome).toBe("destroyed");
    expect((await stored(scope)).etag).toBeNull();
  });
});
