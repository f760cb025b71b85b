/**
 * A third-party OIDC issuer for clients outside workerd (the vendor-SDK suite, test/sdk/): hosts
 * `*.issuer.test` serve the discovery document and JWKS seeded into their state, so an emulated
 * cloud (../aws-sts/) can verify a token the suite signed itself. Under the emulators-only server
 * (../server.ts) an emulated cloud's outbound fetch reaches it through the proxy path, so such an
 * issuer is `https://<any host>/v1/emulators/<name>.issuer.test`. Storage keys:
 *   discovery → the openid-configuration document
 *   jwks      → `{ keys: [...] }` (public keys only)
 */
import type { ProviderEmulatorModule } from "../emulator";

const HOST = /^[a-z0-9-]+\.issuer\.test$/;

/** A fixed issuer host for suites that seed one issuer only (the Google SDK proof). */
export const OIDC_ISSUER_HOST = "google.issuer.test";
export const oidcIssuerKeys = { discovery: "discovery", jwks: "jwks" } as const;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export const oidcIssuerEmulator: ProviderEmulatorModule = {
  provider: "oidc-issuer",
  matches: (host) => HOST.test(host),
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state) {
    const path = new URL(request.url).pathname;
    if (request.method !== "GET") return json(405, { error: "method not allowed" });
    const stored =
      path === "/.well-known/openid-configuration"
        ? state.get("discovery")
        : path === "/.well-known/jwks.json"
          ? state.get("jwks")
          : undefined;
    return stored === undefined ? json(404, { error: "not found" }) : json(200, stored);
  },

  injectedError(status) {
    return json(status, { error: "injected" });
  },
};
