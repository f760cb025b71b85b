/**
 * `npm start` works out of the box: a `sponson-demo.` tenant (sponson-demo.us.auth0.com) has, on
 * first use, the M2M client `sponson-local` and the application `preview-app`. Local values, not
 * secrets. The keyless example (connection `auth0-federated`): the M2M client `sponson-federated`
 * authenticates with Private Key JWT against the local issuer's published keys (fetched from its
 * JWKS URL through the emulator's outbound, so a rotated local ring needs no copy here) and edits
 * the application `federated-app`. `legacy-app` holds entries from before the service (DEMO_LEGACY).
 */
import type { EmulatorState } from "../emulator";
import { auth0Keys, clientRecord, DEFAULT_M2M_SCOPES, type M2mClient } from "./state";

export const DEMO_HOST_PREFIX = "sponson-demo.";
export const DEMO_M2M = { clientId: "sponson-local", clientSecret: "local-demo-secret" } as const;
export const DEMO_APPLICATION_ID = "preview-app";
/** The local issuer of `npm start` (SPONSON_PUBLIC_URL); its JWKS is served by the Worker itself. */
export const LOCAL_ISSUER_JWKS = "https://sponson.localhost/.well-known/jwks.json";
export const DEMO_FEDERATED = { clientId: "sponson-federated", application: "federated-app" } as const;
/**
 * An application that had preview URLs before the service (docs/deploy.md, "Day one: existing
 * entries"), in examples/plan.json's callback shape: pull requests 71 and 73 of the demo repository
 * are open, 72 is closed (dev/emulators/github/demo.ts), and one entry was added by hand. `sponson
 * adopt` tries it locally; examples/policy.local.json admits it.
 */
export const DEMO_LEGACY = {
  application: "legacy-app",
  callbacks: [
    "https://pr-71.preview.example.com/callback",
    "https://pr-72.preview.example.com/callback",
    "http://localhost:3000/callback",
    "https://pr-73.preview.example.com/callback",
  ],
} as const;

export function provisionDemoTenant(host: string, state: EmulatorState): void {
  if (!host.startsWith(DEMO_HOST_PREFIX) || state.get<boolean>(auth0Keys.demoProvisioned)) return;
  // What was seeded before the tenant's first use (POST /v1/emulators/{host}/seed) is kept.
  const provide = <T>(key: string, value: T) => {
    if (state.get(key) === undefined) state.put<T>(key, value);
  };
  provide<M2mClient>(auth0Keys.m2m(DEMO_M2M.clientId), {
    clientSecret: DEMO_M2M.clientSecret,
    scopes: DEFAULT_M2M_SCOPES,
  });
  provide(auth0Keys.client(DEMO_APPLICATION_ID), clientRecord(DEMO_APPLICATION_ID, { name: "Preview app" }));
  provide<M2mClient>(auth0Keys.m2m(DEMO_FEDERATED.clientId), {
    privateKeyJwt: { jwksUri: LOCAL_ISSUER_JWKS },
    scopes: DEFAULT_M2M_SCOPES,
  });
  provide(
    auth0Keys.client(DEMO_FEDERATED.application),
    clientRecord(DEMO_FEDERATED.application, { name: "Preview app (keyless connection)" }),
  );
  provide(
    auth0Keys.client(DEMO_LEGACY.application),
    clientRecord(DEMO_LEGACY.application, {
      name: "Preview app (before the service)",
      callbacks: [...DEMO_LEGACY.callbacks],
    }),
  );
  state.put(auth0Keys.demoProvisioned, true);
}
