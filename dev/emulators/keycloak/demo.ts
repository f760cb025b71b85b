/**
 * `npm start`: a Keycloak host starting with `keycloak.sponson-demo.` has, on first use, the realm
 * `previews`, the confidential client `sponson-local` with manage-clients (its secret comes as
 * KEYCLOAK_CLIENT_SECRET from scripts/start.mjs) and the client `preview-app`. Local values, not secrets.
 */
import type { EmulatorState } from "../emulator";
import { type KeycloakServiceAccount, keycloakClient, keycloakKeys } from "./state";

export const DEMO_KEYCLOAK = {
  host: "keycloak.sponson-demo.example.com",
  realm: "previews",
  clientId: "sponson-local",
  clientSecret: "local-demo-keycloak-secret",
  client: "preview-app",
  clientUuid: "5b0b5b0b-0000-4000-8000-00000000de70",
} as const;

export function provisionDemoRealm(host: string, state: EmulatorState): void {
  if (!host.startsWith("keycloak.sponson-demo.") || state.get<boolean>("demo:provisioned")) return;
  state.put(keycloakKeys.realm(DEMO_KEYCLOAK.realm), true);
  state.put<KeycloakServiceAccount>(keycloakKeys.service(DEMO_KEYCLOAK.realm, DEMO_KEYCLOAK.clientId), {
    secret: DEMO_KEYCLOAK.clientSecret,
    roles: ["manage-clients"],
  });
  state.put(
    keycloakKeys.client(DEMO_KEYCLOAK.realm, DEMO_KEYCLOAK.clientUuid),
    keycloakClient(DEMO_KEYCLOAK.clientUuid, DEMO_KEYCLOAK.client, {
      redirectUris: ["http://localhost:3000/*"],
      webOrigins: ["http://localhost:3000"],
      postLogout: ["http://localhost:3000/"],
    }),
  );
  state.put("demo:provisioned", true);
}
