import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import {
  IDENTITY_HOST,
  identityProject,
  revokeGoogleTokens,
  seedIdentityProject,
} from "../../helpers/emulators-firebase";
import { describeProviderContract } from "../../helpers/provider-contract";
import { authorizedDomain, firebaseProject } from "./firebase-project";

const UNRELATED = ["localhost", "sponson-tests.firebaseapp.com", "app.example.com"];
const DOMAIN = "pr-1.preview.example.com";

describeProviderContract({
  provider: "firebase",
  op: authorizedDomain,
  item: DOMAIN,
  unrelated: UNRELATED,
  apiHost: () => IDENTITY_HOST,
  forbiddenOn: "write",
  errors: {
    // An unknown key is refused at the token endpoint, as an OAuth invalid_grant (HTTP 400).
    unauthenticated: {
      status: 400,
      message: "Invalid grant: account not found",
      providerCode: "invalid_grant",
    },
    forbidden: {
      status: 403,
      message: "The caller does not have permission",
      providerCode: "PERMISSION_DENIED",
    },
    missing: { status: 404, message: "CONFIGURATION_NOT_FOUND", providerCode: "NOT_FOUND" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const p = await firebaseProject(UNRELATED, failure);
    return {
      ...p,
      params: { project: p.project, domain: DOMAIN },
      secrets: [p.account.keyJson, p.account.privateKeyPem],
      entries: p.domainsNow,
      snapshot: () => identityProject(p.project),
      setEntries: async (entries) => {
        const record = await identityProject(p.project);
        await seedIdentityProject(p.project, {
          ...(record as NonNullable<typeof record>),
          config: { ...record?.config, authorizedDomains: entries },
        });
      },
    };
  },
});

describe("firebase.authorizedDomain on Identity Platform", () => {
  it("signs a JWT for the service account, then PATCHes ?updateMask=authorizedDomains", async () => {
    const p = await firebaseProject(UNRELATED);
    const params = { project: p.project, domain: DOMAIN };
    await authorizedDomain.create(p.ctx, params, await authorizedDomain.inspect(p.ctx, params));
    expect(p.calls).toEqual([
      "POST /token",
      `GET /admin/v2/projects/${p.project}/config`,
      `PATCH /admin/v2/projects/${p.project}/config`,
    ]);
    // Other config fields are untouched by the masked PATCH.
    expect((await identityProject(p.project))?.config).toEqual({
      authorizedDomains: [...UNRELATED, DOMAIN],
      signIn: { email: { enabled: true } },
    });
  });

  it("a token Google stopped honouring (401) is replaced once, and the call goes through", async () => {
    const p = await firebaseProject(UNRELATED);
    const params = { project: p.project, domain: DOMAIN };
    await authorizedDomain.inspect(p.ctx, params);
    await revokeGoogleTokens(p.account.email);
    expect((await authorizedDomain.inspect(p.ctx, params)).present).toBe(false);
    expect(p.calls.filter((c) => c === "POST /token")).toHaveLength(2);
  });

  it("lockOn names the project config; params take bare host names only", () => {
    expect(authorizedDomain.lockOn({ project: "acme-prod", domain: DOMAIN }, { type: "firebase" })).toBe(
      "firebase:acme-prod:config",
    );
    for (const domain of [
      "https://pr-1.example.com",
      "*.example.com",
      "pr-1.example.com/cb",
      "a.example.com:443",
    ]) {
      expect(authorizedDomain.params.safeParse({ project: "acme-prod", domain }).success).toBe(false);
    }
    expect(authorizedDomain.params.safeParse({ project: "acme-prod", domain: "localhost" }).success).toBe(
      true,
    );
  });
});
