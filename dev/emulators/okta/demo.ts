/**
 * `npm start`: an org host starting with `sponson-demo.` (sponson-demo.okta.com) has, on first use,
 * an API token (scripts/start.mjs passes it as OKTA_API_TOKEN) and the OIDC app `0oasponsondemo`.
 * Local values, not secrets. Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { oktaKeys, oktaOidcApp } from "./state";

export const DEMO_OKTA = { token: "00local-demo-okta-api-token", app: "0oasponsondemo" } as const;

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
  state.put("demo:provisioned", true);
}
