/**
 * `npm start`: on the demo account (R2's, ../r2cors/demo.ts), an API token for Turnstile
 * (scripts/start.mjs passes it as TURNSTILE_API_TOKEN) and any widget whose sitekey starts with
 * `0x4AAAAAAAsponson-demo` exist on first use, each holding one hostname of its own. Local values,
 * not secrets.
 */
import type { CloudflareToken } from "../cloudflare/tokens";
import type { EmulatorState } from "../emulator";
import { DEMO_R2 } from "../r2cors/demo";
import { turnstileKeys, turnstileWidget } from "./state";

export const DEMO_TURNSTILE = {
  account: DEMO_R2.account,
  token: "local-demo-turnstile-api-token",
  sitekey: "0x4AAAAAAAsponson-demo",
} as const;

export function provisionDemoTurnstile(account: string, sitekey: string, state: EmulatorState): void {
  if (account !== DEMO_TURNSTILE.account || !sitekey.startsWith(DEMO_TURNSTILE.sitekey)) return;
  if (!state.get<boolean>("demo:turnstile-token")) {
    state.put<CloudflareToken>(`token:${DEMO_TURNSTILE.token}`, {
      accounts: [DEMO_TURNSTILE.account],
      products: ["turnstile"],
    });
    state.put("demo:turnstile-token", true);
  }
  if (!state.get<boolean>(`demo:widget:${sitekey}`)) {
    state.put(turnstileKeys.widget(account, sitekey), turnstileWidget(sitekey, ["app.example.com"]));
    state.put(`demo:widget:${sitekey}`, true);
  }
}
