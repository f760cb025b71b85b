/**
 * The emulated Entra token endpoint and Graph applications API answer like the service (Microsoft
 * identity platform client-credentials flow; Graph v1.0 "Get application" / "Update application"):
 * the OData envelope, 204 on PATCH, Graph's error format and request ids, Retry-After on 429, and
 * the eventual consistency that lets a read miss a write.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { providerFetch } from "../../../dev/emulators/transport";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { configureHost } from "../../helpers/emulators";
import { GRAPH_HOST, graphApp, setGraphLag } from "../../helpers/emulators-entra";

const send = providerFetch(env);

async function tokenFor(t: Awaited<ReturnType<typeof entraTenant>>, secret = t.secret) {
  return send(`https://login.microsoftonline.com/${t.domain}/oauth2/v2.0/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: t.clientId,
      client_secret: secret,
      scope: "https://graph.microsoft.com/.default",
    }).toString(),
  });
}

async function signedIn(
  lists = { web: ["https://a.example.com/cb"], logoutUrl: "https://a.example.com/out" },
) {
  const t = await entraTenant(lists);
  const { access_token } = (await (await tokenFor(t)).json()) as { access_token: string };
  const url = `https://graph.microsoft.com/v1.0/applications/${t.application}`;
  return { t, url, auth: { authorization: `Bearer ${access_token}` } };
}

describe("Entra emulator fidelity", () => {
  it("the token endpoint answers the client-credentials grant with a Bearer token and expires_in", async () => {
    const t = await entraTenant({});
    const res = await tokenFor(t);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599 });
  });

  it("a wrong secret is 401 invalid_client AADSTS7000215 with trace and correlation ids", async () => {
    const t = await entraTenant({});
    const res = await tokenFor(t, "wrong");
    expect(res.status).toBe(401);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: "invalid_client", error_codes: [7000215] });
    expect(body.trace_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(String(body.error_description)).toMatch(/^AADSTS7000215: /);
  });

  it("GET /v1.0/applications/{id} carries @odata.context; applications(appId='…') names the same app", async () => {
    const s = await signedIn();
    const res = await send(s.url, { headers: s.auth });
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("content-type")).toMatch(/^application\/json;odata\.metadata=minimal/);
    const app = (await res.json()) as Record<string, unknown>;
    expect(app["@odata.context"]).toBe("https://graph.microsoft.com/v1.0/$metadata#applications/$entity");
    expect(app).toMatchObject({
      web: { redirectUris: ["https://a.example.com/cb"], logoutUrl: "https://a.example.com/out" },
    });
    const byAppId = await send(`https://graph.microsoft.com/v1.0/applications(appId='${app.appId}')`, {
      headers: s.auth,
    });
    expect(((await byAppId.json()) as { id: string }).id).toBe(s.t.application);
  });

  it("PATCH answers 204; a complex property is replaced whole (web without logoutUrl loses it)", async () => {
    const s = await signedIn();
    const patch = await send(s.url, {
      method: "PATCH",
      headers: { ...s.auth, "content-type": "application/json" },
      body: JSON.stringify({ web: { redirectUris: ["https://b.example.com/cb"] } }),
    });
    expect(patch.status).toBe(204);
    const app = await graphApp(s.t.tenantId, s.t.application);
    expect(app?.web.redirectUris).toEqual(["https://b.example.com/cb"]);
    expect(app?.web.logoutUrl).toBeUndefined();
  });

  it("errors are {error:{code, message, innerError:{date, request-id}}}; an unknown app is 404 Request_ResourceNotFound", async () => {
    const s = await signedIn();
    const res = await send(`https://graph.microsoft.com/v1.0/applications/${crypto.randomUUID()}`, {
      headers: s.auth,
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; innerError: Record<string, string> } };
    expect(body.error.code).toBe("Request_ResourceNotFound");
    expect(body.error.innerError["request-id"]).toBe(res.headers.get("request-id"));
  });

  it("no token is 401 InvalidAuthenticationToken; a 429 carries Retry-After in seconds", async () => {
    const s = await signedIn();
    const anonymous = await send(s.url);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe(
      "InvalidAuthenticationToken",
    );
    await configureHost(GRAPH_HOST, { failures: [{ status: 429, count: 1 }] });
    const limited = await send(s.url, { headers: s.auth });
    await configureHost(GRAPH_HOST, {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
  });

  it("caps: 256 redirect URIs per application over all platforms, 100 once personal accounts sign in, 256 characters each; over them 400 Request_BadRequest as Graph words it", async () => {
    const s = await signedIn();
    const patch = (body: unknown) =>
      send(s.url, {
        method: "PATCH",
        headers: { ...s.auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const uris = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com/`);
    const refused = async (res: Response) => {
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error).toMatchObject({
        code: "Request_BadRequest",
        message: "One or more properties contains invalid values.",
      });
    };
    // The cap is per application: 200 web + 57 spa is past 256 although neither list is.
    await refused(
      await patch({ web: { redirectUris: uris(200, "w") }, spa: { redirectUris: uris(57, "s") } }),
    );
    expect(
      (await patch({ web: { redirectUris: uris(200, "w") }, spa: { redirectUris: uris(56, "s") } })).status,
    ).toBe(204);
    await refused(await patch({ spa: { redirectUris: [`https://a.example.com/${"x".repeat(235)}`] } }));
    await refused(await patch({ signInAudience: "AzureADandPersonalMicrosoftAccount" }));
    await refused(
      await patch({
        signInAudience: "AzureADandPersonalMicrosoftAccount",
        web: { redirectUris: uris(60, "w") },
        spa: { redirectUris: uris(41, "s") },
      }),
    );
    expect(
      (
        await patch({
          signInAudience: "AzureADandPersonalMicrosoftAccount",
          web: { redirectUris: uris(60, "w") },
          spa: { redirectUris: uris(40, "s") },
        })
      ).status,
    ).toBe(204);
    const app = await graphApp(s.t.tenantId, s.t.application);
    expect([app?.web.redirectUris.length, app?.spa.redirectUris.length]).toEqual([60, 40]);
  });

  it("with read-after-write lag on, a GET right after a PATCH still sees the old list; the write is kept", async () => {
    const s = await signedIn();
    await setGraphLag(600_000);
    try {
      await send(s.url, {
        method: "PATCH",
        headers: { ...s.auth, "content-type": "application/json" },
        body: JSON.stringify({ spa: { redirectUris: ["https://pr-9.example.com/"] } }),
      });
      const read = (await (await send(s.url, { headers: s.auth })).json()) as {
        spa: { redirectUris: string[] };
      };
      expect(read.spa.redirectUris).toEqual([]);
      expect((await graphApp(s.t.tenantId, s.t.application))?.spa.redirectUris).toEqual([
        "https://pr-9.example.com/",
      ]);
    } finally {
      await setGraphLag(0);
    }
  });
});
