/**
 * `npm start`: an org host starting with `sponson-demo.` (sponson-demo.okta.com) has, on first use,
 * an API token (scripts/start.mjs passes it as OKTA_API_TOKEN) and the OIDC app `0oasponsondemo`.
 * Local values, not secrets. Storage key: `demo:provisioned` → true. The keyless example
 * (connection `okta-federated`): the API service app `0oasponsonfederated`, granted okta.apps.read
 * and okta.apps.manage, registers the local issuer's JWKS URL (private_key_jwt) and edits the
 * OIDC app `0oasponsonfedapp`.
 */
import type { EmulatorState } from "../emulator";
import { type OktaServiceApp, oktaKeys, oktaOidcApp } from "./state";

export const DEMO_OKTA = {
  token: "00local-demo-okta-api-token",
  app: "0oasponsondemo",
  serviceApp: "0oasponsonfederated",
  federatedApp: "0oasponsonfedapp",
} as const;
const LOCAL_ISSUER_JWKS = "https://sponson.localhost/.well-known/jwks.json";

export function provisionDemoOrg(host: string, state: EmulatorState): void {
  if (!host.startsWith("sponson-demo.") || state.get<boolean>("demo:provisioned")) return;
  state.put(oktaKeys.token(DEMO_OKTA.token), {});
  state.put(oktaKeys.app(DEMO_OKTA.app), {
    ...oktaOidcApp(DEMO_OKTA.app, {
      redirect_uris: ["http://localhost:3000/callback"],
      post_logout_redirect_uris: ["http://localhost:3000/"],
    }),
    _links: { self: { href: `https://${host}/api/v1/apps/${DEMO_OKTA.app}` } },
  });
  state.put<OktaServiceApp>(oktaKeys.serviceApp(DEMO_OKTA.serviceApp), {
    jwksUri: LOCAL_ISSUER_JWKS,
    scopes: ["okta.apps.read", "okta.apps.manage"],
  });
  state.put(oktaKeys.app(DEMO_OKTA.federatedApp), {
    ...oktaOidcApp(DEMO_OKTA.federatedApp, { redirect_uris: [], post_logout_redirect_uris: [] }),
    _links: { self: { href: `https://${host}/api/v1/apps/${DEMO_OKTA.federatedApp}` } },
  });
  state.put("demo:provisioned", true);
}
