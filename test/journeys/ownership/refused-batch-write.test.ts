/**
 * A write of the many-items form the provider refuses outright (docs/design.md, "A send of several
 * requests refused half-way"): one request, answered 400 on its one attempt, so nothing of it is
 * on the provider. Its claims name the scope the owner of entries it never wrote; kept, one that
 * someone adds meanwhile is the scope's own to the run's rollback, which removes it. So they are
 * withdrawn before the group fails, and the rollback leaves that entry.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { lockStub } from "../../../workers/locks/lock-target";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { appLockKey, freshPr, receipt } from "../../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

describe("a many-items write refused outright", () => {
  it("takes back its claims first: the URL someone added meanwhile stays through the run's rollback", async () => {
    const domain = freshAuth0Domain();
    await seedTenant(domain);
    const scope = freshPr();
    const plan = previewPlan(domain);
    const callback = `https://${scope}.preview.example.com/callback`;
    // The application's PATCH is refused 400, once; at that moment someone adds the callback by hand.
    let refused = 0;
    const wrapFetch =
      (inner: typeof fetch): typeof fetch =>
      async (input, init) => {
        if (new Request(input, init).method !== "PATCH" || refused > 0) return inner(input, init);
        refused += 1;
        const app = await auth0Client(domain, APP_CLIENT);
        await seedAuth0Tenant(domain, {
          m2m: TEST_M2M,
          clients: {
            [APP_CLIENT]: {
              callbacks: [...(app?.callbacks ?? []), callback],
              allowed_logout_urls: app?.allowed_logout_urls ?? [],
              web_origins: app?.web_origins ?? [],
              allowed_origins: app?.allowed_origins ?? [],
            },
          },
        });
        return Response.json(
          { statusCode: 400, error: "Bad Request", message: "invalid uri" },
          { status: 400 },
        );
      };
    const result = await testEngine({ combining: false, wrapFetch }).apply({
      repository: DEFAULT_REPOSITORY,
      environment: "preview",
      scope,
      plan,
    });
    expect(refused).toBe(1);
    expect(result.run.status).toBe("failed");
    expect(result.lines.map((l) => l.error?.code)).toEqual([
      "PROVIDER_ERROR",
      "PROVIDER_ERROR",
      "PROVIDER_ERROR",
    ]);

    expect((await auth0Client(domain, APP_CLIENT))?.callbacks, "the hand-added callback stays").toEqual([
      callback,
    ]);
    const key = await appLockKey(domain);
    const owned = (await lockStub(env, key).ownership({ key })).items.find((i) => i.key === callback);
    expect(owned?.owners ?? []).toEqual([]);
    expect((await receipt("preview", scope)).intents).toEqual([]);
  });
});
