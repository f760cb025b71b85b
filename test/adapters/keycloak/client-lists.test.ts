import { describe, expect, it } from "vitest";
import { POST_LOGOUT_ATTRIBUTE } from "../../../dev/emulators/keycloak";
import { configureHost } from "../../helpers/emulators";
import { describeProviderContract, failure } from "../../helpers/provider-contract";
import { CLIENT, keycloakOp, keycloakRealm } from "./keycloak-realm";

const REDIRECTS = ["https://app.example.com/*", "http://localhost:3000/*"];
const ORIGINS = ["https://app.example.com"];
const LOGOUTS = ["https://app.example.com/", "http://localhost:3000/"];
const ITEM = "https://pr-1.preview.example.com/*";

type Lists = { redirectUris: string[]; webOrigins: string[]; postLogout: string[] };
const LISTS: Lists = { redirectUris: REDIRECTS, webOrigins: ORIGINS, postLogout: LOGOUTS };

for (const [name, list] of [
  ["keycloak.redirectUri", "redirectUris"],
  ["keycloak.webOrigin", "webOrigins"],
  ["keycloak.postLogoutRedirectUri", "postLogout"],
] as const) {
  const entriesOf = (rep: Record<string, unknown> | undefined): string[] =>
    list === "postLogout"
      ? String((rep?.attributes as Record<string, string>)?.[POST_LOGOUT_ATTRIBUTE] ?? "")
          .split("##")
          .filter(Boolean)
      : ((rep?.[list] as string[] | undefined) ?? []);
  describeProviderContract({
    provider: "keycloak",
    op: keycloakOp(name),
    item: ITEM,
    unrelated: [...LISTS[list]],
    apiHost: (f) => (f.ctx.config as { host: string }).host,
    forbiddenOn: "write",
    errors: {
      unauthenticated: {
        status: 401,
        message: "Invalid client or Invalid client credentials",
        providerCode: "unauthorized_client",
      },
      forbidden: { status: 403, message: "HTTP 403 Forbidden", providerCode: "HTTP 403 Forbidden" },
      missing: { status: 404, message: `no client with clientId ${CLIENT} in realm previews` },
      serverError: {
        status: 500,
        // A write's last 500 adds that it may have landed (admin-api.ts).
        message: /^For more on this error consult the server log\.( \(outcome unknown\))?$/,
        providerCode: "unknown_error",
      },
    },
    rateLimitWaitMs: () => undefined,
    async setup(failure) {
      const k = await keycloakRealm(LISTS, failure);
      return {
        ...k,
        params: { client: CLIENT, url: ITEM },
        secrets: [k.secret],
        entries: async () => entriesOf((await k.record())?.rep),
        snapshot: k.record,
        setEntries: async (entries) => {
          const r = await k.record();
          if (!r) throw new Error("no client");
          const rep =
            list === "postLogout"
              ? { ...r.rep, attributes: { ...r.rep.attributes, [POST_LOGOUT_ATTRIBUTE]: entries.join("##") } }
              : { ...r.rep, [list]: entries };
          await k.setRecord({ ...r, rep });
        },
      };
    },
  });
}

describe("keycloak: the whole representation as read", () => {
  it("a PUT carries every field read, authorizationServicesEnabled included: the client's authorization settings survive", async () => {
    const k = await keycloakRealm(LISTS);
    const before = await k.record();
    const op = keycloakOp("keycloak.redirectUri");
    const params = { client: CLIENT, url: ITEM };
    await op.create(k.ctx, params, await op.inspect(k.ctx, params));
    const after = await k.record();
    expect(after?.authz).toEqual(before?.authz);
    expect(after?.rep).toEqual({ ...before?.rep, redirectUris: [...REDIRECTS, ITEM] });
  });

  it("control: the same PUT without authorizationServicesEnabled wipes the authorization settings", async () => {
    const k = await keycloakRealm(LISTS);
    const before = await k.record();
    expect(before?.authz?.resources.length).toBeGreaterThan(0);
    const { authorizationServicesEnabled: _dropped, ...partial } = before?.rep ?? {};
    const token = await tokenOf(k);
    const res = await k.ctx.fetch(`https://${k.host}/admin/realms/previews/clients/${k.uuid}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ ...partial, redirectUris: [...REDIRECTS, ITEM] }),
    });
    expect(res.status).toBe(204);
    const after = await k.record();
    expect(after?.authz).toBeUndefined();
    expect(after?.rep.authorizationServicesEnabled).toBe(false);
  });

  it("the three lists of one client go out in one PUT; the post-logout URIs stay one ##-separated attribute", async () => {
    const k = await keycloakRealm(LISTS);
    const batch = keycloakOp("keycloak.redirectUri").batch;
    if (!batch) throw new Error("no batch form");
    const params = (name: string) => ({
      client: CLIENT,
      url: name === "keycloak.webOrigin" ? "https://pr-1.preview.example.com" : ITEM,
    });
    const state = await batch.read(k.ctx, params("x"));
    const before = k.calls.length;
    await batch.write(k.ctx, params("x"), state, (s) =>
      ["keycloak.redirectUri", "keycloak.webOrigin", "keycloak.postLogoutRedirectUri"].reduce(
        (acc, name) => keycloakOp(name).batch?.edit(acc, params(name), "create") ?? acc,
        s,
      ),
    );
    expect(k.calls.slice(before).filter((c) => c.startsWith("PUT "))).toHaveLength(1);
    const rep = (await k.record())?.rep;
    expect(rep?.webOrigins).toEqual([...ORIGINS, "https://pr-1.preview.example.com"]);
    expect(rep?.attributes?.[POST_LOGOUT_ATTRIBUTE]).toBe([...LOGOUTS, ITEM].join("##"));
  });

  it("the client is found by clientId, then read by its internal id", async () => {
    const k = await keycloakRealm(LISTS);
    await keycloakOp("keycloak.webOrigin").inspect(k.ctx, { client: CLIENT, url: "https://x.example.com" });
    expect(k.calls.filter((c) => !c.includes("/token"))).toEqual([
      "GET /admin/realms/previews/clients",
      `GET /admin/realms/previews/clients/${k.uuid}`,
    ]);
  });
});

describe("keycloak: errors", () => {
  it("a 409 in the ErrorRepresentation shape reads as its errorMessage", async () => {
    const k = await keycloakRealm(LISTS);
    const token = await tokenOf(k);
    // A second client whose clientId the first is renamed to.
    const other = await keycloakRealm({});
    expect(other.host).not.toBe(k.host);
    const r = await k.record();
    if (!r) throw new Error("no client");
    const second = crypto.randomUUID();
    await k.setRecord(r);
    await (await import("../../helpers/emulators")).emulatorStub(k.host).seed({
      [`client:previews:${second}`]: { rep: { ...r.rep, id: second, clientId: "taken" } },
    });
    const res = await k.ctx.fetch(`https://${k.host}/admin/realms/previews/clients/${k.uuid}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ ...r.rep, clientId: "taken" }),
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ errorMessage: "Client already exists" });
    const { keycloakHttp } = await import("../../../workers/adapters/keycloak/admin-api");
    expect(keycloakHttp.describeError({ errorMessage: "Client already exists" })).toEqual({
      message: "Client already exists",
    });
    expect(
      keycloakHttp.describeError({
        error: "invalid_input",
        error_description: "A redirect URI is not a valid URI",
      }),
    ).toEqual({
      message: "A redirect URI is not a valid URI",
      code: "invalid_input",
    });
  });

  it("a host wildcard is refused with 400 invalid_input and nothing is written", async () => {
    const k = await keycloakRealm(LISTS);
    const op = keycloakOp("keycloak.redirectUri");
    const params = { client: CLIENT, url: "https://*.preview.example.com/*" };
    const err = await failure(op.inspect(k.ctx, params).then((seen) => op.create(k.ctx, params, seen)));
    expect(err.detail).toMatchObject({ provider: "keycloak", status: 400, providerCode: "invalid_input" });
    expect(err.message).toBe("keycloak: 400 A redirect URI is not a valid URI");
    expect((await k.record())?.rep.redirectUris).toEqual(REDIRECTS);
  });

  it("a 500 on the PUT (concurrent admin writes) that outlasts the retries is an unknown outcome", async () => {
    const k = await keycloakRealm(LISTS);
    const op = keycloakOp("keycloak.redirectUri");
    const params = { client: CLIENT, url: ITEM };
    const seen = await op.inspect(k.ctx, params);
    await configureHost(k.host, { failures: [{ status: 500, count: 100, on: "write" }] });
    const err = await failure(op.create(k.ctx, params, seen));
    await configureHost(k.host, {});
    expect(err.code).toBe("PROVIDER_ERROR");
    expect(err.detail).toMatchObject({ provider: "keycloak", status: 500, outcome: "unknown", attempts: 4 });
    expect(err.message).toBe(
      "keycloak: 500 For more on this error consult the server log. (outcome unknown)",
    );
    expect(k.calls.filter((c) => c.startsWith("PUT "))).toHaveLength(4);
  });
});

async function tokenOf(k: Awaited<ReturnType<typeof keycloakRealm>>): Promise<string> {
  const res = await k.ctx.fetch(`https://${k.host}/realms/previews/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: "sponson",
      client_secret: k.secret,
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
