/**
 * `npm start`: the tenant `sponson-demo.onmicrosoft.com` (id DEMO_ENTRA.tenantId) exists on first
 * use with an app registration that may change applications (scripts/start.mjs passes its secret as
 * ENTRA_CLIENT_SECRET), a second one that signs in only with a federated identity credential for the
 * example connection `entra-federated` (issuers: ../demo-issuers.ts), and Graph holds the application DEMO_ENTRA.objectId. Local values, not
 * secrets. Storage key on each host: `demo:provisioned` → true.
 */
import { DEMO_ISSUERS, demoSubject } from "../demo-issuers";
import type { EmulatorState } from "../emulator";
import { type EntraAppRecord, type EntraTenant, entraKeys, graphApplication } from "./state";

export const DEMO_ENTRA = {
  tenant: "sponson-demo.onmicrosoft.com",
  tenantId: "5ed0a5e0-0000-4000-8000-00000000de70",
  clientId: "5ed0c11e-0000-4000-8000-00000000de70",
  clientSecret: "local-demo-entra-secret",
  /** The app registration of `entra-federated`: no secret, federated identity credentials only. */
  federatedClientId: "5ed0fed0-0000-4000-8000-00000000de70",
  objectId: "5ed0a991-0000-4000-8000-00000000de70",
  appId: "5ed0a99c-0000-4000-8000-00000000de70",
} as const;

export function provisionDemoTenant(tenant: string, state: EmulatorState): void {
  const names: string[] = [DEMO_ENTRA.tenant, DEMO_ENTRA.tenantId];
  if (!names.includes(tenant.toLowerCase()) || state.get<boolean>("demo:provisioned")) return;
  const record: EntraTenant = {
    id: DEMO_ENTRA.tenantId,
    clients: {
      [DEMO_ENTRA.clientId]: { secret: DEMO_ENTRA.clientSecret, roles: ["Application.ReadWrite.All"] },
      [DEMO_ENTRA.federatedClientId]: {
        roles: ["Application.ReadWrite.All"],
        federatedCredentials: DEMO_ISSUERS.map((issuer) => ({
          issuer,
          subject: demoSubject("entra-federated"),
          audiences: ["api://AzureADTokenExchange"],
        })),
      },
    },
  };
  for (const name of names) state.put(entraKeys.tenant(name), record);
  state.put("demo:provisioned", true);
}

export function provisionDemoGraph(tenantId: string, state: EmulatorState): void {
  if (tenantId !== DEMO_ENTRA.tenantId || state.get<boolean>("demo:provisioned")) return;
  state.put<EntraAppRecord>(entraKeys.app(DEMO_ENTRA.tenantId, DEMO_ENTRA.objectId), {
    owners: [],
    versions: [
      {
        visibleAtMs: 0,
        app: graphApplication(DEMO_ENTRA.objectId, DEMO_ENTRA.appId, {
          web: ["http://localhost:3000/callback"],
          spa: ["http://localhost:5173/"],
          logoutUrl: "http://localhost:3000/logout",
        }),
      },
    ],
  });
  state.put("demo:provisioned", true);
}
