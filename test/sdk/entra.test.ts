/**
 * Microsoft's clients against the Entra emulators: `@azure/identity`'s ClientSecretCredential buys
 * the Graph token from login.microsoftonline.com (MSAL reads the tenant's OpenID metadata first),
 * and `@microsoft/microsoft-graph-client` reads and patches the application. Identity takes an
 * `httpClient`; the Graph client calls the global fetch, routed to the emulators. The adapter and
 * the SDKs each read what the other wrote.
 */
import { ClientSecretCredential } from "@azure/identity";
import { Client } from "@microsoft/microsoft-graph-client";
import { beforeAll, describe, expect, it } from "vitest";
import { entraKeys, graphApplication } from "../../dev/emulators/entra";
import { entraAdapter } from "../../workers/adapters/entra";
import { adapterContext, opOf } from "./adapter-context";
import { emulatorFetch, routeGlobalFetchToEmulators, seed, sent } from "./emulators";

const tenantId = crypto.randomUUID();
const domain = `sdk${tenantId.slice(0, 8)}.onmicrosoft.com`;
const clientId = crypto.randomUUID();
const secret = `sdk~${crypto.randomUUID()}`;
const objectId = crypto.randomUUID();

beforeAll(async () => {
  routeGlobalFetchToEmulators();
  await seed("login.microsoftonline.com", {
    [entraKeys.tenant(tenantId)]: {
      id: tenantId,
      clients: { [clientId]: { secret, roles: ["Application.ReadWrite.All"] } },
    },
    [entraKeys.tenant(domain)]: {
      id: tenantId,
      clients: { [clientId]: { secret, roles: ["Application.ReadWrite.All"] } },
    },
  });
  await seed("graph.microsoft.com", {
    [entraKeys.app(tenantId, objectId)]: {
      owners: [],
      versions: [
        {
          visibleAtMs: 0,
          app: graphApplication(objectId, crypto.randomUUID(), {
            web: ["https://app.example.com/signin-oidc"],
            logoutUrl: "https://app.example.com/signout",
          }),
        },
      ],
    },
  });
});

interface PipelineRequestLike {
  url: string;
  method: string;
  headers: { toJSON(): Record<string, string> };
  body?: unknown;
}

/** The @azure/core-rest-pipeline HttpClient contract, sending through the origin-rewriting fetch. */
const httpClient = {
  async sendRequest(request: PipelineRequestLike) {
    const res = await emulatorFetch(request.url, {
      method: request.method,
      headers: request.headers.toJSON(),
      body: request.body as BodyInit | undefined,
    });
    const headers = new Map([...res.headers].map(([k, v]) => [k.toLowerCase(), v]));
    return {
      request,
      status: res.status,
      bodyAsText: await res.text(),
      headers: {
        get: (n: string) => headers.get(n.toLowerCase()),
        has: (n: string) => headers.has(n.toLowerCase()),
        set: (n: string, v: string) => void headers.set(n.toLowerCase(), v),
        delete: (n: string) => void headers.delete(n.toLowerCase()),
        toJSON: () => Object.fromEntries(headers),
        [Symbol.iterator]: () => headers.entries(),
      },
    };
  },
};

const credential = (tenant = domain, s = secret) =>
  new ClientSecretCredential(tenant, clientId, s, { httpClient: httpClient as never });

async function graph() {
  const token = await credential().getToken("https://graph.microsoft.com/.default");
  return Client.initWithMiddleware({ authProvider: { getAccessToken: async () => token.token } });
}

const op = opOf(entraAdapter, "entra.redirectUri");
const ctx = () =>
  adapterContext(entraAdapter, { type: "entra", tenant: domain, clientId, clientSecret: secret });

describe("@azure/identity + @microsoft/microsoft-graph-client", () => {
  it("ClientSecretCredential gets a Graph token from the tenant's token endpoint", async () => {
    const token = await credential().getToken("https://graph.microsoft.com/.default");
    expect(token.token.split(".")).toHaveLength(3);
    expect(sent.some((r) => new URL(r.url).pathname.endsWith("/oauth2/v2.0/token"))).toBe(true);
  });

  it("a wrong secret is refused with AADSTS7000215", async () => {
    const err = await credential(domain, "wrong")
      .getToken("https://graph.microsoft.com/.default")
      .catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain("AADSTS7000215");
  });

  it("the Graph client reads the URI the adapter added; the adapter reads what the Graph client patched", async () => {
    const c = ctx();
    const added = { application: objectId, kind: "web", url: "https://pr-1.preview.example.com/signin-oidc" };
    await op.create(c, added, await op.inspect(c, added));
    const client = await graph();
    const app = await client.api(`/applications/${objectId}`).get();
    expect(app["@odata.context"]).toBe("https://graph.microsoft.com/v1.0/$metadata#applications/$entity");
    expect(app.web.redirectUris).toEqual(["https://app.example.com/signin-oidc", added.url]);
    expect(app.web.logoutUrl).toBe("https://app.example.com/signout");

    await client
      .api(`/applications/${objectId}`)
      .patch({ spa: { redirectUris: ["https://pr-2.preview.example.com/"] } });
    const spa = { application: objectId, kind: "spa", url: "https://pr-2.preview.example.com/" };
    expect((await op.inspect(ctx(), spa)).present).toBe(true);
  });

  it("Graph errors reach the client as GraphError with Graph's code and status", async () => {
    const client = await graph();
    const err = await client
      .api(`/applications/${crypto.randomUUID()}`)
      .get()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 404, code: "Request_ResourceNotFound" });
  });
});
