/**
 * One plan mixing every provider (examples/all-providers.plan.json, all fourteen, and a keyless
 * connection of every federated family: gcs-, firebase-, google-, recaptcha-, googleapikey-, s3-, cognito-, entra-,
 * auth0- and okta-federated, the service being the issuer the demo states trust) applies
 * for two scopes at once and destroys cleanly, through the HTTP API, against the demo tenants the
 * emulators provision on first use (the same ones `npm start` serves). Every provider object then
 * holds both scopes' entries; applying one scope's plan again changes nothing (every line
 * `unchanged`); after one scope's destroy only the other's remain, and the entries
 * the demo objects started with are untouched throughout.
 */
import { env } from "cloudflare:workers";
import { exportPKCS8, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { DEMO_API_KEY } from "../../dev/emulators/apikeys";
import { DEMO_FEDERATED } from "../../dev/emulators/auth0/demo";
import { CLERK_HOST, type ClerkInstanceRecord, clerkKeys, DEMO_CLERK } from "../../dev/emulators/clerk";
import { DEMO_COGNITO } from "../../dev/emulators/cognito";
import { DEMO_ENTRA } from "../../dev/emulators/entra";
import { DEMO_GOOGLE_ACCOUNT } from "../../dev/emulators/firebase/demo";
import { DEMO_IAM } from "../../dev/emulators/google-iam";
import { DEMO_KEYCLOAK, type KeycloakClientRecord, keycloakKeys } from "../../dev/emulators/keycloak";
import { DEMO_KINDE } from "../../dev/emulators/kinde/demo";
import { DEMO_OKTA } from "../../dev/emulators/okta/demo";
import { DEMO_R2 } from "../../dev/emulators/r2cors/demo";
import { DEMO_RECAPTCHA } from "../../dev/emulators/recaptcha";
import { DEMO_ACCESS_KEY } from "../../dev/emulators/s3";
import { DEMO_SUPABASE } from "../../dev/emulators/supabase/demo";
import { DEMO_TURNSTILE } from "../../dev/emulators/turnstile";
import example from "../../examples/all-providers.plan.json";
import demoConnections from "../../examples/connections.local.json";
import { planSchema } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { call, testApp } from "../helpers/app";
import { auth0Client, emulatorStub } from "../helpers/emulators";
import { apiKey } from "../helpers/emulators-apikeys";
import { cognitoClient } from "../helpers/emulators-cognito";
import { graphApp } from "../helpers/emulators-entra";
import { identityProject } from "../helpers/emulators-firebase";
import { gcsBucket } from "../helpers/emulators-gcs";
import { iamClient } from "../helpers/emulators-google-iam";
import { kindeApp } from "../helpers/emulators-kinde";
import { oktaApp } from "../helpers/emulators-okta";
import { r2Bucket } from "../helpers/emulators-r2cors";
import { recaptchaKey } from "../helpers/emulators-recaptcha";
import { s3Bucket } from "../helpers/emulators-s3";
import { supabaseAuthConfig } from "../helpers/emulators-supabase";
import { turnstileWidgetNow } from "../helpers/emulators-turnstile";

/** The example as the API validates it (a malformed example fails here, not in the README). */
const plan = planSchema.parse(example);
const BUCKET = "sponson-demo-assets";
type Origins = {
  origin?: string[];
  id?: string;
  ID?: string;
  allowed?: { origins: string[] };
  AllowedOrigin?: string[];
};

/** Every entry each provider object holds in the lists the plan edits, as "list: entry". */
const HOLDINGS: Record<string, () => Promise<string[]>> = {
  async auth0() {
    const c = await auth0Client("sponson-demo.us.auth0.com", "preview-app");
    return [
      ...(c?.callbacks ?? []).map((u) => `callbacks: ${u}`),
      ...(c?.web_origins ?? []).map((u) => `origins: ${u}`),
    ];
  },
  async supabase() {
    return ((await supabaseAuthConfig(DEMO_SUPABASE.ref))?.uri_allow_list ?? "").split(",").filter(Boolean);
  },
  async firebase() {
    return (await identityProject("sponson-demo"))?.config?.authorizedDomains ?? [];
  },
  async gcs() {
    return ((await gcsBucket(BUCKET))?.cors ?? []).flatMap((r, i) =>
      ((r as Origins).origin ?? []).map((o) => `#${i}: ${o}`),
    );
  },
  async okta() {
    const client = (await oktaApp("sponson-demo.okta.com", DEMO_OKTA.app))?.settings.oauthClient;
    return [
      ...(client?.redirect_uris ?? []).map((u) => `redirect: ${u}`),
      ...(client?.post_logout_redirect_uris ?? []).map((u) => `logout: ${u}`),
    ];
  },
  async kinde() {
    const app = await kindeApp("sponson-demo.kinde.com", DEMO_KINDE.app);
    return [
      ...(app?.redirect_urls ?? []).map((u) => `callback: ${u}`),
      ...(app?.logout_urls ?? []).map((u) => `logout: ${u}`),
    ];
  },
  async r2() {
    const rules = ((await r2Bucket(DEMO_R2.account, BUCKET))?.rules ?? []) as Origins[];
    return rules.flatMap((r) => (r.allowed?.origins ?? []).map((o) => `${r.id}: ${o}`));
  },
  async s3() {
    const rules = ((await s3Bucket(BUCKET, "us-east-1"))?.rules ?? []) as Origins[];
    return rules.flatMap((r) => (r.AllowedOrigin ?? []).map((o) => `${r.ID}: ${o}`));
  },
  async google() {
    return (await iamClient(DEMO_IAM.project, DEMO_IAM.client))?.allowedRedirectUris ?? [];
  },
  async recaptcha() {
    return (
      (await recaptchaKey(DEMO_RECAPTCHA.project, DEMO_RECAPTCHA.key))?.webSettings?.allowedDomains ?? []
    );
  },
  async googleapikey() {
    const key = (await apiKey(DEMO_API_KEY.project, DEMO_API_KEY.key))?.key;
    const browser = key?.restrictions?.browserKeyRestrictions as { allowedReferrers?: string[] } | undefined;
    return browser?.allowedReferrers ?? [];
  },
  async entra() {
    const app = await graphApp(DEMO_ENTRA.tenantId, DEMO_ENTRA.objectId);
    return [
      ...(app?.web.redirectUris ?? []).map((u) => `web: ${u}`),
      ...(app?.spa.redirectUris ?? []).map((u) => `spa: ${u}`),
    ];
  },
  async cognito() {
    const c = await cognitoClient(`us-east-1${DEMO_COGNITO.poolSuffix}`, DEMO_COGNITO.client, "us-east-1");
    return [
      ...(c?.CallbackURLs ?? []).map((u) => `callback: ${u}`),
      ...(c?.LogoutURLs ?? []).map((u) => `logout: ${u}`),
    ];
  },
  // Keyless connections (privateKeyJwt, docs/design.md "Federated connections").
  async "auth0-federated"() {
    const c = await auth0Client("sponson-demo.us.auth0.com", DEMO_FEDERATED.application);
    return (c?.callbacks ?? []).map((u) => `callbacks: ${u}`);
  },
  async "okta-federated"() {
    const client = (await oktaApp("sponson-demo.okta.com", DEMO_OKTA.federatedApp))?.settings.oauthClient;
    return (client?.redirect_uris ?? []).map((u) => `redirect: ${u}`);
  },
  async keycloak() {
    const key = keycloakKeys.client(DEMO_KEYCLOAK.realm, DEMO_KEYCLOAK.clientUuid);
    const rep = ((await emulatorStub(DEMO_KEYCLOAK.host).dump(key))[key] as KeycloakClientRecord | undefined)
      ?.rep;
    return [
      ...(rep?.redirectUris ?? []).map((u) => `redirect: ${u}`),
      ...(rep?.webOrigins ?? []).map((u) => `origin: ${u}`),
      ...(rep?.attributes?.["post.logout.redirect.uris"] ?? "")
        .split("##")
        .filter(Boolean)
        .map((u) => `logout: ${u}`),
    ];
  },
  async clerk() {
    const stub = emulatorStub(CLERK_HOST);
    const key = clerkKeys.instance(DEMO_CLERK.instance);
    const instance = (await stub.dump(key))[key] as ClerkInstanceRecord | undefined;
    const redirects = Object.values(await stub.dump(clerkKeys.redirects(DEMO_CLERK.instance))) as {
      url: string;
    }[];
    return [
      ...(instance?.allowed_origins ?? []).map((u) => `origin: ${u}`),
      ...redirects.map((r) => `redirect: ${r.url}`),
    ];
  },
  async turnstile() {
    return (await turnstileWidgetNow(DEMO_TURNSTILE.account, DEMO_TURNSTILE.sitekey))?.domains ?? [];
  },
};

/** What the demo objects hold before any scope touched them. */
const DEMO_ENTRIES: Record<string, string[]> = {
  auth0: [],
  supabase: ["http://localhost:3000/**"],
  firebase: ["localhost", "sponson-demo.firebaseapp.com"],
  gcs: ["#0: https://app.example.com"],
  okta: ["redirect: http://localhost:3000/callback", "logout: http://localhost:3000/"],
  kinde: ["callback: http://localhost:3000/callback", "logout: http://localhost:3000/"],
  r2: ["app: https://app.example.com"],
  s3: ["app: https://app.example.com"],
  google: ["http://localhost:3000/callback"],
  recaptcha: ["localhost"],
  googleapikey: ["https://app.example.com/*"],
  entra: ["web: http://localhost:3000/callback", "spa: http://localhost:5173/"],
  cognito: ["callback: http://localhost:3000/callback", "logout: http://localhost:3000/"],
  keycloak: [
    "redirect: http://localhost:3000/*",
    "origin: http://localhost:3000",
    "logout: http://localhost:3000/",
  ],
  clerk: [`origin: ${DEMO_CLERK.origin}`, `redirect: ${DEMO_CLERK.redirectUrl}`],
  turnstile: ["app.example.com"],
};

/** The entries scope pr-<n> owns in each provider object. */
function owned(n: string): Record<string, string[]> {
  const host = `pr-${n}.preview.example.com`;
  const out: Record<string, string[]> = {
    auth0: [`callbacks: https://${host}/callback`, `origins: https://${host}`],
    supabase: [`https://${host}/**`],
    firebase: [host],
    gcs: [`#1: https://${host}`],
    okta: [`redirect: https://${host}/callback`, `logout: https://${host}/`],
    kinde: [`callback: https://${host}/callback`, `logout: https://${host}/`],
    r2: [`previews: https://${host}`],
    s3: [`previews: https://${host}`],
    google: [`https://${host}/callback`],
    recaptcha: [host],
    googleapikey: [`https://${host}/*`],
    entra: [`web: https://${host}/callback`, `spa: https://${host}/`],
    cognito: [`callback: https://${host}/callback`, `logout: https://${host}/`],
    keycloak: [`redirect: https://${host}/callback`, `origin: https://${host}`, `logout: https://${host}/`],
    clerk: [`origin: https://${host}`, `redirect: https://${host}/sso-callback`],
    turnstile: [host],
    "auth0-federated": [`callbacks: https://${host}/callback`],
    "okta-federated": [`redirect: https://${host}/callback`],
  };
  // The federated lines write to the same demo objects as the secret-form ones, on their own host.
  const fed = `pr-${n}-fed.preview.example.com`;
  const federated: Record<string, string[]> = {
    gcs: [`#1: https://${fed}`],
    firebase: [fed],
    google: [`https://${fed}/callback`],
    recaptcha: [fed],
    googleapikey: [`https://${fed}/*`],
    s3: [`previews: https://${fed}`],
    cognito: [`callback: https://${fed}/callback`],
    entra: [`web: https://${fed}/callback`],
  };
  for (const [provider, entries] of Object.entries(federated))
    out[provider] = [...(out[provider] ?? []), ...entries];
  return out;
}

async function holdings(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [provider, read] of Object.entries(HOLDINGS)) out[provider] = (await read()).sort();
  return out;
}

function expected(...scopes: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const provider of Object.keys(HOLDINGS)) {
    out[provider] = [
      ...(DEMO_ENTRIES[provider] ?? []),
      ...scopes.flatMap((n) => owned(n)[provider] ?? []),
    ].sort();
  }
  return out;
}

async function demoSecrets(): Promise<Record<string, string>> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return {
    AUTH0_CLIENT_SECRET: "local-demo-secret",
    SUPABASE_ACCESS_TOKEN: DEMO_SUPABASE.token,
    GOOGLE_SERVICE_ACCOUNT_KEY: JSON.stringify({
      type: "service_account",
      private_key: await exportPKCS8(privateKey),
      client_email: DEMO_GOOGLE_ACCOUNT,
    }),
    OKTA_API_TOKEN: DEMO_OKTA.token,
    KINDE_CLIENT_SECRET: DEMO_KINDE.clientSecret,
    R2_API_TOKEN: DEMO_R2.token,
    S3_SECRET_ACCESS_KEY: DEMO_ACCESS_KEY.secret,
    ENTRA_CLIENT_SECRET: DEMO_ENTRA.clientSecret,
    COGNITO_SECRET_ACCESS_KEY: DEMO_COGNITO.secret,
    KEYCLOAK_CLIENT_SECRET: DEMO_KEYCLOAK.clientSecret,
    CLERK_SECRET_KEY: DEMO_CLERK.secretKey,
    TURNSTILE_API_TOKEN: DEMO_TURNSTILE.token,
  };
}

describe("a plan mixing every provider", () => {
  it("applies for two scopes at once, and one scope's destroy leaves the other's entries and the demo's own", async () => {
    // The demo connections npm start configures (examples/connections.local.json).
    const bindings = {
      ...env,
      ...(await demoSecrets()),
      SPONSON_CONNECTIONS: JSON.stringify(demoConnections),
    };
    const app = testApp();
    const base = Math.floor(Math.random() * 1e5) * 10;
    const [a, b] = [String(base + 1), String(base + 2)];
    const run = async (n: string, action: "apply" | "destroy") => {
      const body = action === "apply" ? { plan, wait: true } : { wait: true };
      const res = await call(app, "POST", `/v1/scopes/preview/pr-${n}/${action}`, body, {}, bindings);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as RunResult;
    };

    const applied = await Promise.all([run(a, "apply"), run(b, "apply")]);
    for (const result of applied) {
      expect(result.run.error ?? result.run.status).toBe("succeeded");
      expect(result.lines.map((l) => [l.id, l.diff])).toEqual(plan.lines.map((l) => [l.id, "create"]));
    }
    expect(await holdings()).toEqual(expected(a, b));

    // Applied again unchanged: every line is already there and nothing moves.
    const again = await run(a, "apply");
    expect(again.run.error ?? again.run.status).toBe("succeeded");
    expect(again.lines.map((l) => l.diff)).toEqual(plan.lines.map(() => "unchanged"));
    expect(await holdings()).toEqual(expected(a, b));

    const destroyed = await run(a, "destroy");
    expect(destroyed.run.error ?? destroyed.run.status).toBe("succeeded");
    expect(await holdings()).toEqual(expected(b));

    expect((await run(b, "destroy")).run.status).toBe("succeeded");
    expect(await holdings()).toEqual(expected());
  }, 120_000);
});
