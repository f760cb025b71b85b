/**
 * `npm start` works out of the box: a `sponson-demo.` tenant (sponson-demo.us.auth0.com) has, on
 * first use, the M2M client `sponson-local` and the application `preview-app`. Local values, not
 * secrets.
 */
import type { EmulatorState } from "../emulator";
import { auth0Keys, clientRecord, DEFAULT_M2M_SCOPES, type M2mClient } from "./state";

export const DEMO_HOST_PREFIX = "sponson-demo.";
export const DEMO_M2M = { clientId: "sponson-local", clientSecret: "local-demo-secret" } as const;
export const DEMO_APPLICATION_ID = "preview-app";

export function provisionDemoTenant(host: string, state: EmulatorState): void {
  if (!host.startsWith(DEMO_HOST_PREFIX) || state.get<boolean>(auth0Keys.demoProvisioned)) return;
  state.put<M2mClient>(auth0Keys.m2m(DEMO_M2M.clientId), {
    clientSecret: DEMO_M2M.clientSecret,
    scopes: DEFAULT_M2M_SCOPES,
  });
  state.put(
    auth0Keys.client(DEMO_APPLICATION_ID),
    clientRecord(DEMO_APPLICATION_ID, { name: "Preview app" }),
  );
  state.put(auth0Keys.demoProvisioned, true);
}
