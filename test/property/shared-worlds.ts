/**
 * One shared object per provider for the shared-entry property (./shared-histories.test.ts): a
 * fresh emulated object seeded with entries nobody manages, a connection to it, plans whose lines
 * add entries to it, and what the provider holds now. Every provider's entries are named by a
 * host (`shared-a.example.com`, `own-a.{scope}.preview.example.com`); each provider writes it the
 * way its list holds entries (a callback URL, an allow-list glob, an origin, a bare domain, a
 * referrer pattern).
 */
import type { Plan } from "../../shared/schemas/plan";
import { apiKeyWith } from "../adapters/apikeys/api-key";
import { clerkInstanceWith } from "../adapters/clerk/clerk-instance";
import { userPoolWithClient } from "../adapters/cognito/user-pool";
import { entraTenant } from "../adapters/entra/entra-tenant";
import { firebaseProject } from "../adapters/firebase/firebase-project";
import { bucketWithCors } from "../adapters/gcs/gcs-bucket";
import { iamProjectWithClient } from "../adapters/google/iam-oauth-client";
import {
  CLIENT as KEYCLOAK_CLIENT,
  SERVICE as KEYCLOAK_SERVICE,
  keycloakRealm,
} from "../adapters/keycloak/keycloak-realm";
import { APP as KINDE_APP, M2M as KINDE_M2M, kindeBusiness } from "../adapters/kinde/kinde-business";
import { APP_ID as OKTA_APP, oktaOrg } from "../adapters/okta/okta-org";
import { r2BucketWithCors } from "../adapters/r2cors/r2-bucket";
import { recaptchaProjectWithKey } from "../adapters/recaptcha/recaptcha-key";
import { s3BucketWithCors } from "../adapters/s3/s3-bucket";
import { supabaseProject } from "../adapters/supabase/supabase-project";
import { turnstileWidgetWith } from "../adapters/turnstile/turnstile-widget";
import { connectionOf, registerConnection } from "../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../helpers/emulators";
import { COGNITO_REGION } from "../helpers/emulators-cognito";
import { S3_REGION } from "../helpers/emulators-s3";
import { seedTurnstile } from "../helpers/emulators-turnstile";
import { APP_CLIENT, auth0Connection, TEST_M2M } from "../helpers/plans";

export const PROVIDER_NAMES = [
  "auth0",
  "supabase",
  "firebase",
  "gcs",
  "okta",
  "kinde",
  "r2",
  "s3",
  "google",
  "entra",
  "cognito",
  "keycloak",
  "clerk",
  "turnstile",
  "recaptcha",
  "googleapikey",
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface SharedObject {
  provider: ProviderName;
  /** Worker secrets the object's connection names (merged into the engine's env). */
  secrets: Record<string, string>;
  /** A plan whose line `id` adds the entry for `host` (`{scope}` is the engine's to fill in). */
  plan(lines: ReadonlyArray<{ id: string; host: string }>): Plan;
  /** The entry (and item key) the provider holds for `host`. */
  entry(host: string): string;
  /** What the shared list holds now, in the provider's order. */
  entries(): Promise<string[]>;
}

let connections = 0;
/** One connection per object: names are never reused, so no token of an earlier object is. */
function connection(block: Parameters<typeof connectionOf>[1]): string {
  connections += 1;
  return connectionOf(`property-${block.type}-${connections}`, block);
}

function planOf(
  op: string,
  conn: string,
  params: (host: string) => Record<string, string>,
): SharedObject["plan"] {
  return (lines) => ({
    version: 2,
    lines: lines.map((l) => ({ id: l.id, op, connection: conn, params: params(l.host) })),
  });
}

const url = (host: string) => `https://${host}/callback`;
const origin = (host: string) => `https://${host}`;

/** Builds a fresh object holding the entries for `foreign` (hosts) before any scope exists. */
export const SHARED_OBJECTS: Record<ProviderName, (foreign: readonly string[]) => Promise<SharedObject>> = {
  async auth0(foreign) {
    const domain = freshAuth0Domain("prop");
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: {
        [APP_CLIENT]: {
          callbacks: foreign.map(url),
          allowed_logout_urls: [],
          web_origins: [],
          allowed_origins: [],
        },
      },
    });
    const conn = auth0Connection(domain);
    return {
      provider: "auth0",
      secrets: {},
      plan: planOf("auth0.callbackUrl", conn, (host) => ({ client: APP_CLIENT, url: url(host) })),
      entry: url,
      entries: async () => (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [],
    };
  },
  async supabase(foreign) {
    const glob = (host: string) => `https://${host}/**`;
    const p = await supabaseProject(foreign.map(glob).join(","));
    const conn = connection({ type: "supabase", accessToken: { secret: "PROPERTY_SUPABASE_TOKEN" } });
    return {
      provider: "supabase",
      secrets: { PROPERTY_SUPABASE_TOKEN: p.token },
      plan: planOf("supabase.redirectUrl", conn, (host) => ({ project: p.ref, url: glob(host) })),
      entry: glob,
      entries: async () => (await p.allowListNow())?.split(",").filter((e) => e !== "") ?? [],
    };
  },
  async firebase(foreign) {
    const p = await firebaseProject([...foreign]);
    const conn = connection({ type: "firebase", serviceAccountKey: { secret: "PROPERTY_FIREBASE_KEY" } });
    return {
      provider: "firebase",
      secrets: { PROPERTY_FIREBASE_KEY: p.account.keyJson },
      plan: planOf("firebase.authorizedDomain", conn, (host) => ({ project: p.project, domain: host })),
      entry: (host) => host,
      entries: p.domainsNow,
    };
  },
  async gcs(foreign) {
    const b = await bucketWithCors([{ origin: foreign.map(origin), method: ["GET"] }]);
    const conn = connection({ type: "gcs", serviceAccountKey: { secret: "PROPERTY_GCS_KEY" } });
    return {
      provider: "gcs",
      secrets: { PROPERTY_GCS_KEY: b.account.keyJson },
      plan: planOf("gcs.corsOrigin", conn, (host) => ({
        bucket: b.bucket,
        rule: "#0",
        origin: origin(host),
      })),
      entry: origin,
      entries: async () => ((await b.stored())?.cors?.[0] as { origin?: string[] } | undefined)?.origin ?? [],
    };
  },
  async okta(foreign) {
    const o = await oktaOrg({ redirect_uris: foreign.map(url) });
    const conn = connection({ type: "okta", domain: o.org, apiToken: { secret: "PROPERTY_OKTA_TOKEN" } });
    return {
      provider: "okta",
      secrets: { PROPERTY_OKTA_TOKEN: o.token },
      plan: planOf("okta.redirectUri", conn, (host) => ({ app: OKTA_APP, url: url(host) })),
      entry: url,
      entries: async () => (await o.app())?.settings.oauthClient.redirect_uris ?? [],
    };
  },
  async kinde(foreign) {
    const k = await kindeBusiness({ redirect_urls: foreign.map(url) });
    const conn = connection({
      type: "kinde",
      domain: k.domain,
      clientId: KINDE_M2M.clientId,
      clientSecret: { secret: "PROPERTY_KINDE_SECRET" },
    });
    return {
      provider: "kinde",
      secrets: { PROPERTY_KINDE_SECRET: k.secret },
      plan: planOf("kinde.callbackUrl", conn, (host) => ({ app: KINDE_APP, url: url(host) })),
      entry: url,
      entries: async () => (await k.app())?.redirect_urls ?? [],
    };
  },
  async r2(foreign) {
    const b = await r2BucketWithCors([
      { id: "previews", allowed: { origins: foreign.map(origin), methods: ["GET"] } },
    ]);
    const conn = connection({ type: "r2", accountId: b.account, apiToken: { secret: "PROPERTY_R2_TOKEN" } });
    return {
      provider: "r2",
      secrets: { PROPERTY_R2_TOKEN: b.token },
      plan: planOf("r2.corsOrigin", conn, (host) => ({
        bucket: b.bucket,
        rule: "previews",
        origin: origin(host),
      })),
      entry: origin,
      entries: async () =>
        ((await b.stored())?.rules?.[0] as { allowed: { origins: string[] } } | undefined)?.allowed.origins ??
        [],
    };
  },
  async s3(foreign) {
    const b = await s3BucketWithCors([
      { ID: "previews", AllowedMethod: ["GET"], AllowedOrigin: foreign.map(origin) },
    ]);
    const conn = connection({
      type: "s3",
      region: S3_REGION,
      accessKeyId: b.accessKeyId,
      secretAccessKey: { secret: "PROPERTY_S3_SECRET" },
    });
    return {
      provider: "s3",
      secrets: { PROPERTY_S3_SECRET: b.secret },
      plan: planOf("s3.corsOrigin", conn, (host) => ({
        bucket: b.bucket,
        rule: "previews",
        origin: origin(host),
      })),
      entry: origin,
      entries: async () => (await b.stored())?.rules?.[0]?.AllowedOrigin ?? [],
    };
  },
  async google(foreign) {
    const p = await iamProjectWithClient(foreign.map(url));
    const conn = connection({ type: "google", serviceAccountKey: { secret: "PROPERTY_GOOGLE_KEY" } });
    return {
      provider: "google",
      secrets: { PROPERTY_GOOGLE_KEY: p.account.keyJson },
      plan: planOf("google.oauthClientRedirectUri", conn, (host) => p.params(url(host))),
      entry: url,
      entries: async () => (await p.client())?.allowedRedirectUris ?? [],
    };
  },
  async entra(foreign) {
    const t = await entraTenant({ web: foreign.map(url) });
    const conn = connection({
      type: "entra",
      tenant: t.domain,
      clientId: t.clientId,
      clientSecret: { secret: "PROPERTY_ENTRA_SECRET" },
    });
    return {
      provider: "entra",
      secrets: { PROPERTY_ENTRA_SECRET: t.secret },
      plan: planOf("entra.redirectUri", conn, (host) => t.params("web", url(host))),
      // An Entra item key names its platform (`web:<url>`): the web list, as item keys.
      entry: (host) => `web:${url(host)}`,
      entries: async () => ((await t.app())?.web.redirectUris ?? []).map((u) => `web:${u}`),
    };
  },
  async cognito(foreign) {
    const p = await userPoolWithClient({ CallbackURLs: foreign.map(url) });
    const conn = connection({
      type: "cognito",
      region: COGNITO_REGION,
      accessKeyId: p.accessKeyId,
      secretAccessKey: { secret: "PROPERTY_COGNITO_SECRET" },
    });
    return {
      provider: "cognito",
      secrets: { PROPERTY_COGNITO_SECRET: p.secret },
      plan: planOf("cognito.callbackUrl", conn, (host) => p.params(url(host))),
      entry: url,
      entries: async () => (await p.stored())?.CallbackURLs ?? [],
    };
  },
  async keycloak(foreign) {
    const k = await keycloakRealm({ redirectUris: foreign.map(url) });
    const conn = connection({
      type: "keycloak",
      host: k.host,
      realm: "previews",
      clientId: KEYCLOAK_SERVICE.clientId,
      clientSecret: { secret: "PROPERTY_KEYCLOAK_SECRET" },
    });
    return {
      provider: "keycloak",
      secrets: { PROPERTY_KEYCLOAK_SECRET: k.secret },
      plan: planOf("keycloak.redirectUri", conn, (host) => ({ client: KEYCLOAK_CLIENT, url: url(host) })),
      entry: url,
      entries: async () => (await k.record())?.rep.redirectUris ?? [],
    };
  },
  async recaptcha(foreign) {
    const p = await recaptchaProjectWithKey([...foreign]);
    const conn = connection({ type: "recaptcha", serviceAccountKey: { secret: "PROPERTY_RECAPTCHA_KEY" } });
    return {
      provider: "recaptcha",
      secrets: { PROPERTY_RECAPTCHA_KEY: p.account.keyJson },
      plan: planOf("recaptcha.domain", conn, (host) => p.params(host)),
      entry: (host) => host,
      entries: p.domainsNow,
    };
  },
  async clerk(foreign) {
    const c = await clerkInstanceWith({ allowedOrigins: foreign.map(origin) });
    const conn = connection({
      type: "clerk",
      instance: c.instance,
      secretKey: { secret: "PROPERTY_CLERK_KEY" },
    });
    return {
      provider: "clerk",
      secrets: { PROPERTY_CLERK_KEY: c.secretKey },
      plan: planOf("clerk.allowedOrigin", conn, (host) => ({ origin: origin(host) })),
      entry: origin,
      entries: async () => (await c.stored())?.allowed_origins ?? [],
    };
  },
  async turnstile(foreign) {
    // Up to 12 hostnames (2 foreign, 2 shared, 2 of each of 4 scopes): past the Free plan's 10, so
    // the account is Enterprise and the connection raises the cap to its 200.
    const w = await turnstileWidgetWith([...foreign]);
    await seedTurnstile({ plan: [w.account, { hostnames: 200 }] });
    connections += 1;
    const conn = registerConnection(`property-turnstile-${connections}`, {
      type: "turnstile",
      config: { accountId: w.account },
      secrets: { apiToken: "PROPERTY_TURNSTILE_TOKEN" },
      capacity: { "turnstile.hostname": 200 },
    });
    return {
      provider: "turnstile",
      secrets: { PROPERTY_TURNSTILE_TOKEN: w.token },
      plan: planOf("turnstile.hostname", conn, (host) => ({ sitekey: w.sitekey, hostname: host })),
      entry: (host) => host,
      entries: async () => (await w.stored())?.domains ?? [],
    };
  },
  async googleapikey(foreign) {
    const referrer = (host: string) => `https://${host}/*`;
    const k = await apiKeyWith(foreign.map(referrer));
    const conn = connection({ type: "googleapikey", serviceAccountKey: { secret: "PROPERTY_APIKEYS_KEY" } });
    return {
      provider: "googleapikey",
      secrets: { PROPERTY_APIKEYS_KEY: k.account.keyJson },
      plan: planOf("googleapikey.referrer", conn, (host) => k.params(referrer(host))),
      entry: referrer,
      entries: k.referrersNow,
    };
  },
};
