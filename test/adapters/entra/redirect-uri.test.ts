import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { GRAPH_HOST, graphApp, seedGraphApp } from "../../helpers/emulators-entra";
import { describeProviderContract, failure } from "../../helpers/provider-contract";
import { entraTenant, redirectUri } from "./entra-tenant";

const WEB = ["https://app.example.com/signin-oidc", "https://localhost:5001/signin-oidc"];
const SPA = ["https://app.example.com/"];
const NATIVE = ["msal00000000-0000-0000-0000-000000000000://auth"];
const ITEM = "https://pr-1.preview.example.com/signin-oidc";

for (const [kind, unrelated] of [
  ["web", WEB],
  ["spa", SPA],
  ["publicClient", NATIVE],
] as const) {
  describeProviderContract({
    provider: "entra",
    op: redirectUri,
    item: ITEM,
    unrelated: [...unrelated],
    apiHost: () => GRAPH_HOST,
    forbiddenOn: "write",
    errors: {
      unauthenticated: {
        status: 401,
        message: /^AADSTS7000215: Invalid client secret provided\. .* Trace ID: [0-9a-f-]{36} /,
        providerCode: "invalid_client",
      },
      forbidden: {
        status: 403,
        message: "Insufficient privileges to complete the operation.",
        providerCode: "Authorization_RequestDenied",
      },
      missing: {
        status: 404,
        message:
          /^Resource '[0-9a-f-]{36}' does not exist or one of its queried reference-property objects are not present\.$/,
        providerCode: "Request_ResourceNotFound",
      },
      serverError: {
        status: 500,
        message: "The service is temporarily unavailable.",
        providerCode: "serviceNotAvailable",
      },
    },
    rateLimitWaitMs: secondsResetHeader("retry-after"),
    async setup(fail) {
      const t = await entraTenant(
        { web: WEB, spa: SPA, publicClient: NATIVE, logoutUrl: "https://app.example.com/signout" },
        fail,
      );
      return {
        ...t,
        params: t.params(kind, ITEM),
        secrets: [t.secret],
        entries: async () => (await t.app())?.[kind].redirectUris ?? [],
        snapshot: () => t.app(),
        setEntries: async (entries) => {
          const app = await t.app();
          if (!app) throw new Error("app missing");
          await seedGraphApp(t.tenantId, {
            ...app,
            [kind]: {
              ...app[kind],
              redirectUris: entries,
              ...(kind === "web"
                ? { redirectUriSettings: entries.map((uri) => ({ uri, index: null })) }
                : {}),
            },
          });
        },
      };
    },
  });
}

describe("entra.redirectUri: GET the application, PATCH the changed platforms", () => {
  it("a web URI and an SPA URI of one run go out in one PATCH; logoutUrl and implicit grant settings stay", async () => {
    const t = await entraTenant({ web: WEB, spa: SPA, logoutUrl: "https://app.example.com/signout" });
    const before = await t.app();
    const web = t.params("web", ITEM);
    const spa = t.params("spa", "https://pr-1.preview.example.com/");
    const batch = redirectUri.batch;
    if (!batch) throw new Error("entra has a batch form");
    const state = await batch.read(t.ctx, web);
    await batch.write(t.ctx, web, state, (s) => batch.edit(batch.edit(s, web, "create"), spa, "create"));
    const path = `/v1.0/applications/${t.application}`;
    expect(t.calls).toEqual([`POST /${t.domain}/oauth2/v2.0/token`, `GET ${path}`, `PATCH ${path}`]);
    const after = await t.app();
    expect(after?.web).toEqual({
      ...before?.web,
      redirectUris: [...WEB, ITEM],
      redirectUriSettings: [...WEB, ITEM].map((uri) => ({ uri, index: null })),
    });
    expect(after?.spa.redirectUris).toEqual([...SPA, "https://pr-1.preview.example.com/"]);
    expect({ ...after, web: null, spa: null }).toEqual({ ...before, web: null, spa: null });
  });

  it("the token is bought once and reused for every later call", async () => {
    const t = await entraTenant({ web: WEB });
    await redirectUri.create(
      t.ctx,
      t.params("web", ITEM),
      await redirectUri.inspect(t.ctx, t.params("web", ITEM)),
    );
    await redirectUri.inspect(t.ctx, t.params("web", ITEM));
    expect(t.calls.filter((c) => c.includes("/oauth2/v2.0/token"))).toHaveLength(1);
  });

  it("a URI longer than 256 characters is refused before any request (Entra's limit)", () => {
    const url = `https://pr-1.preview.example.com/${"a".repeat(230)}`;
    expect(redirectUri.params.safeParse({ application: crypto.randomUUID(), kind: "web", url }).success).toBe(
      false,
    );
  });

  it("past 256 URIs the provider's refusal comes back as PROVIDER_ERROR 400 and nothing is written", async () => {
    const full = Array.from({ length: 256 }, (_, i) => `https://app.example.com/cb/${i}`);
    const t = await entraTenant({ web: full });
    const params = t.params("web", ITEM);
    const err = await failure(
      redirectUri.inspect(t.ctx, params).then((seen) => redirectUri.create(t.ctx, params, seen)),
    );
    expect(err.detail).toMatchObject({ provider: "entra", status: 400, providerCode: "Request_BadRequest" });
    expect((await graphApp(t.tenantId, t.application))?.web.redirectUris).toHaveLength(256);
  });

  it("lockOn names the tenant's application, from the connection's settings", () => {
    const id = crypto.randomUUID();
    expect(
      redirectUri.lockOn(
        { application: id, kind: "spa", url: ITEM },
        { type: "entra", tenant: "Contoso.onmicrosoft.com" },
      ),
    ).toBe(`entra:contoso.onmicrosoft.com:application:${id}`);
  });
});
