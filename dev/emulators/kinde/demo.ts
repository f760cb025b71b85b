/**
 * `npm start`: a business host starting with `sponson-demo.` (sponson-demo.kinde.com) has, on first
 * use, the M2M application `sponson-local` (its secret comes as KINDE_CLIENT_SECRET from
 * scripts/start.mjs) and the application `sponsondemoapp`. Local values, not secrets.
 * Storage key: `demo:provisioned` → true.
 */
import type { EmulatorState } from "../emulator";
import { KINDE_ALL_SCOPES, type KindeApp, type KindeM2m, kindeKeys } from "./state";

export const DEMO_KINDE = {
  clientId: "sponson-local",
  clientSecret: "local-demo-kinde-secret",
  app: "sponsondemoapp",
} as const;

export function provisionDemoBusiness(host: string, state: EmulatorState): void {
  if (!host.startsWith("sponson-demo.") || state.get<boolean>("demo:provisioned")) return;
  state.put<KindeM2m>(kindeKeys.m2m(DEMO_KINDE.clientId), {
    clientSecret: DEMO_KINDE.clientSecret,
    scopes: KINDE_ALL_SCOPES,
  });
  state.put<KindeApp>(kindeKeys.app(DEMO_KINDE.app), {
    redirect_urls: ["http://localhost:3000/callback"],
    logout_urls: ["http://localhost:3000/"],
  });
  state.put("demo:provisioned", true);
}
