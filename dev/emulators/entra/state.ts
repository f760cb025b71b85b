/**
 * What the Entra emulators keep. login.microsoftonline.com and graph.microsoft.com are separate
 * emulator objects that share no storage, so an access token carries what it grants (./graph-token.ts).
 *
 * On login.microsoftonline.com:
 *   tenant:<tenant id or domain> → EntraTenant (its id and the app registrations that may sign in)
 * On graph.microsoft.com (one object for every tenant, like the service):
 *   app:<tenant id>:<object id>  → EntraAppRecord (versions of the application, newest last)
 *   lag:readAfterWriteMs         → number: how long a write stays invisible to reads (0: none)
 *   demo:provisioned             → true (./demo.ts)
 */

export interface EntraClientCredential {
  /** Absent: the app signs in only with a federated identity credential. */
  secret?: string;
  /** Federated identity credentials: an issuer and one subject whose tokens stand for the app. */
  federatedCredentials?: Array<{ issuer: string; subject: string; audiences: string[] }>;
  /** Application permissions granted to the app's service principal on Graph. */
  roles: string[];
}

export interface EntraTenant {
  id: string;
  clients: Record<string, EntraClientCredential>;
}

/** The fields of a Graph `application` the emulator models; others are kept as they came. */
export interface GraphApplication {
  id: string;
  appId: string;
  displayName: string;
  signInAudience: string;
  createdDateTime: string;
  web: {
    homePageUrl: string | null;
    logoutUrl: string | null;
    redirectUris: string[];
    redirectUriSettings: Array<{ uri: string; index: number | null }>;
    implicitGrantSettings: { enableAccessTokenIssuance: boolean; enableIdTokenIssuance: boolean };
  };
  spa: { redirectUris: string[] };
  publicClient: { redirectUris: string[] };
  [field: string]: unknown;
}

/**
 * Graph is eventually consistent: a write is kept at once, but reads see it only from
 * `visibleAtMs` on. The last version is the truth every PATCH applies to.
 */
export interface EntraAppRecord {
  /** App ids of service principals allowed to change it under Application.ReadWrite.OwnedBy. */
  owners: string[];
  versions: Array<{ visibleAtMs: number; app: GraphApplication }>;
}

export const entraKeys = {
  tenant: (name: string) => `tenant:${name.toLowerCase()}`,
  app: (tenantId: string, objectId: string) => `app:${tenantId}:${objectId}`,
  lag: "lag:readAfterWriteMs",
} as const;

export const GRAPH_READ = [
  "Application.Read.All",
  "Application.ReadWrite.All",
  "Application.ReadWrite.OwnedBy",
];

/** A web app registration as the portal creates one. */
export function graphApplication(
  id: string,
  appId: string,
  lists: { web?: string[]; spa?: string[]; publicClient?: string[]; logoutUrl?: string | null } = {},
): GraphApplication {
  const web = lists.web ?? [];
  return {
    id,
    appId,
    displayName: "Previews",
    signInAudience: "AzureADMyOrg",
    createdDateTime: "2026-01-05T10:00:00Z",
    identifierUris: [],
    tags: [],
    web: {
      homePageUrl: null,
      logoutUrl: lists.logoutUrl ?? null,
      redirectUris: web,
      redirectUriSettings: web.map((uri) => ({ uri, index: null })),
      implicitGrantSettings: { enableAccessTokenIssuance: false, enableIdTokenIssuance: true },
    },
    spa: { redirectUris: lists.spa ?? [] },
    publicClient: { redirectUris: lists.publicClient ?? [] },
    requiredResourceAccess: [
      {
        resourceAppId: "00000003-0000-0000-c000-000000000000",
        resourceAccess: [{ id: "e1fe6dd8-ba31-4d61-89e7-88639da4683d", type: "Scope" }],
      },
    ],
  };
}

/** The version a read made at `nowMs` sees: the newest one already visible. */
export function visibleVersion(record: EntraAppRecord, nowMs: number): GraphApplication | undefined {
  const visible = record.versions.filter((v) => v.visibleAtMs <= nowMs);
  return (visible.at(-1) ?? record.versions[0])?.app;
}
