/**
 * A third-party OIDC issuer for clients outside workerd (the vendor-SDK suite, test/sdk/): where
 * the service itself cannot be the issuer, a test seeds this host with a discovery document and a
 * JWKS, and the clouds' emulators fetch them through the emulator server, as they would the
 * service's. Storage: `discovery` → the document, `jwks` → `{ keys }`. Serves public documents only.
 */
import type { ProviderEmulatorModule } from "../emulator";

export const OIDC_ISSUER_HOST = "issuer.sponson-sdk.test";
export const oidcIssuerKeys = { discovery: "discovery", jwks: "jwks" } as const;

const notFound = () => new Response("Not Found", { status: 404 });

export const oidcIssuerEmulator: ProviderEmulatorModule = {
  provider: "oidc-issuer",
  matches: (host) => host === OIDC_ISSUER_HOST,
  isRead: () => false,
  isWrite: () => false,

  async handle(request, state) {
    if (request.method !== "GET") return notFound();
    const path = new URL(request.url).pathname;
    const key =
      path === "/.well-known/openid-configuration"
        ? oidcIssuerKeys.discovery
        : path === "/.well-known/jwks.json"
          ? oidcIssuerKeys.jwks
          : null;
    const document = key ? state.get<unknown>(key) : undefined;
    return document === undefined ? notFound() : Response.json(document);
  },

  injectedError(status) {
    return new Response("Injected failure", { status });
  },
};
