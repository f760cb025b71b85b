import { describe, expect, it } from "vitest";
import { secondsResetHeader } from "../../../workers/adapters/http";
import { APIKEYS_HOST, apiKey, seedApiKey } from "../../helpers/emulators-apikeys";
import { describeProviderContract, failure } from "../../helpers/provider-contract";
import { API_TARGETS, apiKeyWith, KEY, lasting, referrer } from "./api-key";

const UNRELATED = ["https://app.example.com/*", "*.example.org/*"];
const ITEM = "https://pr-1.preview.example.com/*";

describeProviderContract({
  provider: "googleapikey",
  op: referrer,
  item: ITEM,
  unrelated: UNRELATED,
  apiHost: () => APIKEYS_HOST,
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
        /^Permission 'apikeys\.keys\.update' denied on resource '\/\/apikeys\.googleapis\.com\/projects\/[a-z0-9-]+\/locations\/global\/keys\/previews-browser-key' \(or it may not exist\)\.$/,
      providerCode: "PERMISSION_DENIED",
    },
    missing: { status: 404, message: "Requested entity was not found.", providerCode: "NOT_FOUND" },
    serverError: { status: 500, message: "Internal error encountered.", providerCode: "INTERNAL" },
  },
  rateLimitWaitMs: secondsResetHeader("retry-after"),
  async setup(failure) {
    const k = await apiKeyWith(UNRELATED, { failure });
    return {
      ...k,
      params: k.params(ITEM),
      secrets: [k.account.keyJson, k.account.privateKeyPem],
      entries: k.referrersNow,
      // Every update moves the etag and the update time; the rest must be as it was.
      snapshot: async () => lasting(await k.stored()),
      setEntries: async (entries) => {
        const record = await apiKey(k.project, KEY);
        if (!record) throw new Error("key missing");
        const restrictions = {
          ...record.key.restrictions,
          browserKeyRestrictions: { allowedReferrers: entries },
        };
        await seedApiKey(k.project, KEY, { ...record, key: { ...record.key, restrictions } });
      },
    };
  },
});

describe("googleapikey.referrer: GET, then PATCH ?updateMask=restrictions with the etag read", () => {
  it("the PATCH carries the etag and every restriction as read: apiTargets and a field the adapter does not know survive", async () => {
    const unknown = { futureRestriction: { allowedCountries: ["CH"] } };
    const k = await apiKeyWith(UNRELATED, { extra: unknown });
    const before = await k.stored();
    const bodies: unknown[] = [];
    const inner = k.ctx.fetch;
    k.ctx.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (request.method === "PATCH")
        bodies.push({ search: new URL(request.url).search, body: await request.clone().json() });
      return inner(request);
    }) as typeof fetch;
    await referrer.create(k.ctx, k.params(ITEM), await referrer.inspect(k.ctx, k.params(ITEM)));

    const path = `/v2/projects/${k.project}/locations/global/keys/${KEY}`;
    expect(k.calls).toEqual(["POST /token", `GET ${path}`, `PATCH ${path}`]);
    expect(bodies).toEqual([
      {
        search: "?updateMask=restrictions",
        body: {
          etag: before?.etag,
          restrictions: {
            browserKeyRestrictions: { allowedReferrers: [...UNRELATED, ITEM] },
            apiTargets: API_TARGETS,
            ...unknown,
          },
        },
      },
    ]);
    const after = await k.stored();
    expect(after?.restrictions).toEqual({
      browserKeyRestrictions: { allowedReferrers: [...UNRELATED, ITEM] },
      apiTargets: API_TARGETS,
      ...unknown,
    });
    expect(after?.etag).not.toBe(before?.etag);
    expect(after?.displayName).toBe(before?.displayName);
  });

  it("lockOn names the project's key; a key id is checked before any request", () => {
    expect(
      referrer.lockOn({ project: "acme-prod", key: KEY, referrer: ITEM }, { type: "googleapikey" }),
    ).toBe(`googleapikey:acme-prod:key:${KEY}`);
    expect(referrer.params.safeParse({ project: "acme-prod", key: "Key/../x", referrer: ITEM }).success).toBe(
      false,
    );
    expect(referrer.params.safeParse({ project: "acme-prod", key: KEY, referrer: "a b" }).success).toBe(
      false,
    );
  });

  it("a key restricted to IP addresses, or not restricted at all, takes no referrer: VALIDATION before any write", async () => {
    const server = await apiKeyWith([]);
    const record = await apiKey(server.project, KEY);
    if (!record) throw new Error("key missing");
    await seedApiKey(server.project, KEY, {
      ...record,
      key: { ...record.key, restrictions: { serverKeyRestrictions: { allowedIps: ["203.0.113.7"] } } },
    });
    const err = await failure(
      referrer
        .inspect(server.ctx, server.params(ITEM))
        .then((seen) => referrer.create(server.ctx, server.params(ITEM), seen)),
    );
    expect(err.code).toBe("VALIDATION");
    expect(err.message).toContain("IP addresses");

    await seedApiKey(server.project, KEY, {
      ...record,
      key: { ...record.key, restrictions: { apiTargets: API_TARGETS } },
    });
    const open = await failure(
      referrer
        .inspect(server.ctx, server.params(ITEM))
        .then((seen) => referrer.create(server.ctx, server.params(ITEM), seen)),
    );
    expect(open.code).toBe("VALIDATION");
    expect(open.message).toContain("no website restriction");
    expect(server.calls.filter((c) => c.startsWith("PATCH"))).toEqual([]);
  });
});
