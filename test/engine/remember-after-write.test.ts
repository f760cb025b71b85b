/**
 * The lock's memory of a write, asked right after it landed (docs/design.md, "Providers that forget
 * a write"; "Fencing around a write"): Graph answered the PATCH, and the call that makes the parent
 * lock remember it fails. The write is not "nothing written": a provider that forgets it may not
 * show it to the next reader, and the lock does not remember it either, so the group fails with an
 * unknown outcome — the lease ends quietly (its lock-delay keeps the next reader out), the intents
 * stay for recovery, and the run answers `outcome: "unknown"`, never a plain failure that says the
 * change was not made.
 */
import { describe, expect, it } from "vitest";
import { SponsonError } from "../../shared/errors";
import type { Plan } from "../../shared/schemas/plan";
import type { LockProvider } from "../../workers/engine/deps";
import { entraTenant } from "../adapters/entra/entra-tenant";
import { connectionOf } from "../helpers/connections";
import { graphApp } from "../helpers/emulators-entra";
import { freshPr, receipt } from "../helpers/engine";
import { overriding } from "../helpers/lock-overrides";
import { DEFAULT_REPOSITORY } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

/** The parent lock's `rememberWrites` fails as a transport error would, after the write landed. */
function forgetfulLock(calls: string[]) {
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    parent: async (identity) =>
      overriding(await inner.parent(identity), {
        rememberWrites: async () => {
          calls.push("rememberWrites");
          throw new SponsonError("INTERNAL", "the lock object was reset while answering");
        },
      }),
  });
}

describe("the lock's memory of a landed write fails", () => {
  it("the group fails with an unknown outcome; its intent stays; the URI is on Graph", async () => {
    const t = await entraTenant({ web: [] });
    const connection = connectionOf(`remember-entra-${crypto.randomUUID().slice(0, 8)}`, {
      type: "entra",
      tenant: t.domain,
      clientId: t.clientId,
      clientSecret: { secret: "REMEMBER_ENTRA_SECRET" },
    });
    const uri = "https://{scope}.preview.example.com/signin-oidc";
    const plan: Plan = {
      version: 2,
      lines: [{ id: "web", op: "entra.redirectUri", connection, params: t.params("web", uri) }],
    };
    const calls: string[] = [];
    const scope = freshPr();
    const result = await testEngine({
      bindings: { REMEMBER_ENTRA_SECRET: t.secret },
      wrapLocks: forgetfulLock(calls),
    }).apply({ repository: DEFAULT_REPOSITORY, environment: "preview", scope, plan, wait: true });
    expect(calls).toEqual(["rememberWrites"]);
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toEqual([
      uri.replace("{scope}", scope),
    ]);
    expect(result.run.status).toBe("failed");
    expect(result.run.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    // The write's outcome is unknown to the run: recovery resolves it, the intent says so.
    const stored = await receipt("preview", scope);
    expect(stored?.intents.map((i) => i.action)).toEqual(["create"]);
  });
});
