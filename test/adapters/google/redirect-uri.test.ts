import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { IAM_HOST, seedIamClient } from "../../helpers/emulators-google-iam";
import { describeProviderContract } from "../../helpers/provider-contract";
import { CLIENT, iamProjectWithClient, redirectUri } from "./iam-oauth-client";

const UNRELATED = ["https://app.example.com/oauth/callback", "http://localhost:8080/callback"];
const ITEM = "https://pr-1.preview.example.com/oauth/callback";

describeProviderContract({
  provider: "google",
  op: redirectUri,
  item: ITEM,
  unrelated: UNRELATED,
  apiHost: () => IAM_HOST,
  forbiddenOn: "write",
  errors: {
    unauthenticated: {
      status: 400,
      message: "Invalid grant: account not found",
      providerCode: "invalid_grant",
    },
    forbidden: {
      status: 403,
      message:
        /^Permission 'iam\.oauthClients\.update' denied on resource '\/\/iam\.googleapis\.com\/projects\/[a-z0-9-]+\/locations\/global\/oauthClients\/previews-client' \(or it may not exist\)\.$/,
      providerCode: "PERMISSION_DENIED",
    },
    missing: { status: 404, message: "Requested entity was not found.", providerCode: "NOT_FOUND" },
    serverError: { status: 500, message: "Internal error encountered.", providerCode: "INTERNAL" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const p = await iamProjectWithClient(UNRELATED, failure);
    return {
      ...p,
      params: p.params(ITEM),
      secrets: [p.account.keyJson, p.account.privateKeyPem],
      entries: async () => (await p.client())?.allowedRedirectUris ?? [],
      snapshot: () => p.client(),
      setEntries: async (entries) => {
        const c = await p.client();
        if (!c) throw new Error("client missing");
        await seedIamClient(p.project, { ...c, allowedRedirectUris: entries });
      },
    };
  },
});

describe("google.oauthClientRedirectUri: GET, then PATCH ?updateMask=allowedRedirectUris", () => {
  it("the PATCH names only the list: scopes, grant types and the rest of the client stay as they were", async () => {
    const p = await iamProjectWithClient(UNRELATED);
    const before = await p.client();
    await redirectUri.create(p.ctx, p.params(ITEM), await redirectUri.inspect(p.ctx, p.params(ITEM)));
    const path = `/v1/projects/${p.project}/locations/global/oauthClients/${CLIENT}`;
    expect(p.calls).toEqual(["POST /token", `GET ${path}`, `PATCH ${path}`]);
    expect(await p.client()).toEqual({ ...before, allowedRedirectUris: [...UNRELATED, ITEM] });
  });

  it("lockOn names the project's client in its location; location defaults to global", () => {
    const params = { project: "acme-prod", client: CLIENT, url: ITEM };
    expect(redirectUri.lockOn(params, { type: "google" })).toBe(
      `google:acme-prod:oauthClient:global/${CLIENT}`,
    );
  });

  it("an http URL other than localhost is refused before any request", () => {
    expect(
      redirectUri.params.safeParse({ project: "acme-prod", client: CLIENT, url: "http://pr-1.example.com/" })
        .success,
    ).toBe(false);
  });
});
