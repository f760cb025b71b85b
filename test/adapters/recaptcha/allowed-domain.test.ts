import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { RECAPTCHA_HOST, recaptchaWebKey, seedRecaptchaKey } from "../../helpers/emulators-recaptcha";
import { describeProviderContract, failure } from "../../helpers/provider-contract";
import { allowedDomain, recaptchaProjectWithKey, SITE_KEY } from "./recaptcha-key";

const UNRELATED = ["app.example.com", "localhost"];
const ITEM = "pr-1.preview.example.com";

describeProviderContract({
  provider: "recaptcha",
  op: allowedDomain,
  item: ITEM,
  unrelated: UNRELATED,
  apiHost: () => RECAPTCHA_HOST,
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
        /^Permission 'recaptchaenterprise\.keys\.update' denied on resource '\/\/recaptchaenterprise\.googleapis\.com\/projects\/[a-z0-9-]+\/keys\/6LcPreviewsSiteKey0+' \(or it may not exist\)\.$/,
      providerCode: "PERMISSION_DENIED",
    },
    missing: {
      status: 404,
      message: /^Key projects\/[a-z0-9-]+\/keys\/6LcPreviewsSiteKey0+ not found\.$/,
      providerCode: "NOT_FOUND",
    },
    serverError: { status: 500, message: "Internal error encountered.", providerCode: "INTERNAL" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const p = await recaptchaProjectWithKey(UNRELATED, failure);
    return {
      ...p,
      params: p.params(ITEM),
      secrets: [p.account.keyJson, p.account.privateKeyPem],
      entries: p.domainsNow,
      snapshot: () => p.key(),
      setEntries: async (entries) => {
        const k = await p.key();
        if (!k?.webSettings) throw new Error("key missing");
        await seedRecaptchaKey(p.project, {
          ...k,
          webSettings: { ...k.webSettings, allowedDomains: entries },
        });
      },
    };
  },
});

describe("recaptcha.domain: GET, then PATCH ?updateMask=webSettings.allowedDomains", () => {
  it("the PATCH names only the list: every other field of the key, ones the adapter never models included, survives", async () => {
    const p = await recaptchaProjectWithKey(UNRELATED);
    const seeded = recaptchaWebKey(p.project, SITE_KEY, UNRELATED);
    // Fields the adapter knows nothing of, beside the list and inside webSettings with it.
    await seedRecaptchaKey(p.project, {
      ...seeded,
      webSettings: {
        ...seeded.webSettings,
        integrationType: "POLICY_BASED_CHALLENGE",
        challengeSecurityPreference: "BALANCE",
        challengeSettings: { defaultSettings: { scoreThreshold: 0.4 } },
      },
      testingOptions: { testingScore: 0.9 },
    });
    const before = await p.key();
    const urls: string[] = [];
    const ctx = {
      ...p.ctx,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
        urls.push(new Request(input, init).url);
        return p.ctx.fetch(input, init);
      }) as typeof fetch,
    };
    await allowedDomain.create(ctx, p.params(ITEM), await allowedDomain.inspect(ctx, p.params(ITEM)));
    const path = `/v1/projects/${p.project}/keys/${SITE_KEY}`;
    expect(p.calls).toEqual(["POST /token", `GET ${path}`, `PATCH ${path}`]);
    expect(urls.at(-1)).toBe(
      `https://recaptchaenterprise.googleapis.com${path}?updateMask=webSettings.allowedDomains`,
    );
    if (!before?.webSettings) throw new Error("no key");
    expect(await p.key()).toEqual({
      ...before,
      webSettings: { ...before.webSettings, allowedDomains: [...UNRELATED, ITEM] },
    });
  });

  it("a key that is not a website key is refused after the read, before anything is written", async () => {
    const p = await recaptchaProjectWithKey(UNRELATED);
    const { webSettings: _, ...rest } = recaptchaWebKey(p.project, SITE_KEY, []);
    const android = { ...rest, androidSettings: { allowedPackageNames: ["com.example.app"] } };
    await seedRecaptchaKey(p.project, android);
    const err = await failure(allowedDomain.inspect(p.ctx, p.params(ITEM)));
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.retriable).toBe(false);
    expect(err.message).toMatch(/is not a website key/);
    expect(p.calls.filter((c) => c.startsWith("PATCH"))).toEqual([]);
    expect(await p.key()).toEqual(android);
  });

  it("lockOn names the project's key; the cap is the documented 250 domains", () => {
    const params = { project: "acme-prod", siteKey: SITE_KEY, domain: ITEM };
    expect(allowedDomain.lockOn(params, { type: "recaptcha" })).toBe(`recaptcha:acme-prod:key:${SITE_KEY}`);
    expect(allowedDomain.capacity?.maxEntries).toBe(250);
    expect(allowedDomain.coversSubdomains).toBe(true);
  });

  it.each([
    "https://pr-1.preview.example.com",
    "pr-1.preview.example.com:8443",
    "pr-1.preview.example.com/path",
    "*.preview.example.com",
  ])("%s is refused by the params before any request: a domain is a host alone", (domain) => {
    const params = { project: "acme-prod", siteKey: SITE_KEY, domain };
    expect(allowedDomain.params.safeParse(params).success).toBe(false);
  });
});
