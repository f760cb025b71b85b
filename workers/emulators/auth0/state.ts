/**
 * What the Auth0 emulator keeps per tenant host (one emulator object per host). Storage keys:
 *   m2m:<client id>      → M2mClient    (machine-to-machine credentials for /oauth/token)
 *   client:<client id>   → Auth0ClientRecord (the applications whose lists ops edit)
 *   token:<access token> → IssuedToken
 *   demo:provisioned     → true (a `sponson-demo.` host has been given its demo tenant)
 */
import { z } from "zod";
import type { EmulatorState } from "../emulator";

export const LIST_FIELDS = ["callbacks", "allowed_logout_urls", "web_origins", "allowed_origins"] as const;
export type ListField = (typeof LIST_FIELDS)[number];

export const DEFAULT_M2M_SCOPES = ["read:clients", "update:clients"];

export const m2mClientSchema = z.object({
  clientSecret: z.string(),
  scopes: z.array(z.string()).default(DEFAULT_M2M_SCOPES),
});
export type M2mClient = z.infer<typeof m2mClientSchema>;

/** An application as GET /api/v2/clients/{id} returns it (the subset the emulator models). */
export interface Auth0ClientRecord {
  client_id: string;
  name: string;
  app_type: string;
  callbacks: string[];
  allowed_logout_urls: string[];
  web_origins: string[];
  allowed_origins: string[];
  [field: string]: unknown;
}

export interface IssuedToken {
  clientId: string;
  scopes: string[];
  /** Epoch ms. */
  expiresAt: number;
}

export const TOKEN_LIFETIME_SECONDS = 86_400;

export const auth0Keys = {
  m2m: (clientId: string) => `m2m:${clientId}`,
  client: (clientId: string) => `client:${clientId}`,
  token: (accessToken: string) => `token:${accessToken}`,
  demoProvisioned: "demo:provisioned",
} as const;

/** A full client record from a partial seed: lists default to empty, other fields kept as given. */
export function clientRecord(id: string, seed: Partial<Auth0ClientRecord> = {}): Auth0ClientRecord {
  return {
    name: id,
    app_type: "spa",
    callbacks: [],
    allowed_logout_urls: [],
    web_origins: [],
    allowed_origins: [],
    ...seed,
    client_id: id,
  };
}

/** `npm start` works out of the box: a `sponson-demo.` tenant is provisioned on first use. */
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
