/**
 * The lost-update race this service prevents (docs/design.md) for every provider whose ops share an object
 * (lockOn not null): several scopes apply one entry each to the same object while the emulator's read barrier
 * holds every first read until all have read. With parent locks no entry is lost. The control case
 * (no parent locks) loses entries on every provider without a precondition; on GCS the
 * ifMetagenerationMatch precondition catches the race instead (412, re-read, retry), and on a
 * Google API key its etag (409 ABORTED, re-read, decided again): no loss. The key's own losing
 * control drops the precondition too (a key whose updates ignore the etag): entries are lost.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { apiKeyWith, KEY } from "../../adapters/apikeys/api-key";
import { CLERK_HOST, clerkInstanceWith } from "../../adapters/clerk/clerk-instance";
import { userPoolWithClient } from "../../adapters/cognito/user-pool";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { firebaseProject } from "../../adapters/firebase/firebase-project";
import { bucketWithCors } from "../../adapters/gcs/gcs-bucket";
import { iamProjectWithClient } from "../../adapters/google/iam-oauth-client";
import { CLIENT, keycloakRealm } from "../../adapters/keycloak/keycloak-realm";
import { APP_ID, oktaOrg } from "../../adapters/okta/okta-org";
import { r2BucketWithCors } from "../../adapters/r2cors/r2-bucket";
import { recaptchaProjectWithKey } from "../../adapters/recaptcha/recaptcha-key";
import { s3BucketWithCors } from "../../adapters/s3/s3-bucket";
import { supabaseProject } from "../../adapters/supabase/supabase-project";
import { turnstileWidgetWith } from "../../adapters/turnstile/turnstile-widget";
import { connectionOf } from "../../helpers/connections";
import { configureHost } from "../../helpers/emulators";
import { APIKEYS_HOST, apiKey, seedApiKey, staleEtagRefusals } from "../../helpers/emulators-apikeys";
import { COGNITO_REGION, cognitoHost } from "../../helpers/emulators-cognito";
import { GRAPH_HOST } from "../../helpers/emulators-entra";
import { IDENTITY_HOST } from "../../helpers/emulators-firebase";
import { GCS_HOST, gcsPreconditionFailures } from "../../helpers/emulators-gcs";
import { IAM_HOST } from "../../helpers/emulators-google-iam";
import { CLOUDFLARE_API_HOST } from "../../helpers/emulators-r2cors";
import { RECAPTCHA_HOST } from "../../helpers/emulators-recaptcha";
import { S3_REGION, s3Host } from "../../helpers/emulators-s3";
import { SUPABASE_HOST } from "../../helpers/emulators-supabase";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const SCOPES = 6;

interface SharedObject {
  /** Emulator host holding the object (its read barrier lines the runs up). */
  host: string;
  /** Secret values the plan's references resolve to. */
  secrets: Record<string, string>;
  plan: Plan;
  /** The entry scope `pr-<n>` adds. */
  entry(scope: string): string;
  /** What the provider holds now. */
  entries(): Promise<string[]>;
  unrelated: string[];
  /** A provider with a write precondition: how many writes it has refused as made on a stale read. */
  refusals?: () => Promise<number>;
  /** The losing control of a provider with a precondition: its writes stop checking it. */
  dropPrecondition?: () => Promise<void>;
}

let connections = 0;
function planOf(
  provider: Parameters<typeof connectionOf>[1],
  op: string,
  params: Record<string, string>,
): Plan {
  connections += 1;
  const connection = connectionOf(`journey-${provider.type}-${connections}`, provider);
  return { version: 2, lines: [{ id: "entry", op, connection, params }] };
}

const PROVIDERS: Record<string, () => Promise<SharedObject>> = {
  async supabase() {
    const p = await supabaseProject("http://localhost:3000/**");
    return {
      host: SUPABASE_HOST,
      secrets: { JOURNEY_SUPABASE_TOKEN: p.token },
      plan: planOf(
        { type: "supabase", accessToken: { secret: "JOURNEY_SUPABASE_TOKEN" } },
        "supabase.redirectUrl",
        {
          project: p.ref,
          url: "https://{scope}.preview.example.com/**",
        },
      ),
      entry: (scope) => `https://${scope}.preview.example.com/**`,
      entries: async () => (await p.allowListNow())?.split(",") ?? [],
      unrelated: ["http://localhost:3000/**"],
    };
  },
  async firebase() {
    const p = await firebaseProject(["localhost"]);
    return {
      host: IDENTITY_HOST,
      secrets: { JOURNEY_FIREBASE_KEY: p.account.keyJson },
      plan: planOf(
        { type: "firebase", serviceAccountKey: { secret: "JOURNEY_FIREBASE_KEY" } },
        "firebase.authorizedDomain",
        { project: p.project, domain: "{scope}.preview.example.com" },
      ),
      entry: (scope) => `${scope}.preview.example.com`,
      entries: p.domainsNow,
      unrelated: ["localhost"],
    };
  },
  async okta() {
    const o = await oktaOrg({ redirect_uris: ["https://app.example.com/callback"] });
    return {
      host: o.org,
      secrets: { JOURNEY_OKTA_TOKEN: o.token },
      plan: planOf(
        { type: "okta", domain: o.org, apiToken: { secret: "JOURNEY_OKTA_TOKEN" } },
        "okta.redirectUri",
        { app: APP_ID, url: "https://{scope}.preview.example.com/callback" },
      ),
      entry: (scope) => `https://${scope}.preview.example.com/callback`,
      entries: async () => (await o.app())?.settings.oauthClient.redirect_uris ?? [],
      unrelated: ["https://app.example.com/callback"],
    };
  },
  async gcs() {
    const b = await bucketWithCors([{ origin: ["https://app.example.com"], method: ["GET"] }]);
    return {
      host: GCS_HOST,
      secrets: { JOURNEY_GCS_KEY: b.account.keyJson },
      plan: planOf({ type: "gcs", serviceAccountKey: { secret: "JOURNEY_GCS_KEY" } }, "gcs.corsOrigin", {
        bucket: b.bucket,
        rule: "#0",
        origin: "https://{scope}.preview.example.com",
      }),
      entry: (scope) => `https://${scope}.preview.example.com`,
      entries: async () => ((await b.stored())?.cors?.[0] as { origin?: string[] } | undefined)?.origin ?? [],
      unrelated: ["https://app.example.com"],
    };
  },
  async googleapikey() {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    return {
      host: APIKEYS_HOST,
      secrets: { JOURNEY_APIKEYS_KEY: k.account.keyJson },
      plan: planOf(
        { type: "googleapikey", serviceAccountKey: { secret: "JOURNEY_APIKEYS_KEY" } },
        "googleapikey.referrer",
        k.params("https://{scope}.preview.example.com/*"),
      ),
      entry: (scope) => `https://${scope}.preview.example.com/*`,
      entries: k.referrersNow,
      unrelated: ["https://app.example.com/*"],
      refusals: staleEtagRefusals,
      dropPrecondition: async () => {
        const record = await apiKey(k.project, KEY);
        if (!record) throw new Error("key missing");
        await seedApiKey(k.project, KEY, { ...record, ignoresEtag: true });
      },
    };
  },
  async r2() {
    const b = await r2BucketWithCors([
      { id: "previews", allowed: { origins: ["https://app.example.com"], methods: ["GET"] } },
    ]);
    return {
      host: CLOUDFLARE_API_HOST,
      secrets: { JOURNEY_R2_TOKEN: b.token },
      plan: planOf(
        { type: "r2", accountId: b.account, apiToken: { secret: "JOURNEY_R2_TOKEN" } },
        "r2.corsOrigin",
        {
          bucket: b.bucket,
          rule: "previews",
          origin: "https://{scope}.preview.example.com",
        },
      ),
      entry: (scope) => `https://${scope}.preview.example.com`,
      entries: async () =>
        ((await b.stored())?.rules?.[0] as { allowed: { origins: string[] } } | undefined)?.allowed.origins ??
        [],
      unrelated: ["https://app.example.com"],
    };
  },
  async turnstile() {
    const w = await turnstileWidgetWith(["app.example.com"]);
    return {
      host: CLOUDFLARE_API_HOST,
      secrets: { JOURNEY_TURNSTILE_TOKEN: w.token },
      plan: planOf(
        { type: "turnstile", accountId: w.account, apiToken: { secret: "JOURNEY_TURNSTILE_TOKEN" } },
        "turnstile.hostname",
        { sitekey: w.sitekey, hostname: "{scope}.preview.example.com" },
      ),
      entry: (scope) => `${scope}.preview.example.com`,
      entries: async () => (await w.stored())?.domains ?? [],
      unrelated: ["app.example.com"],
    };
  },
  async s3() {
    const b = await s3BucketWithCors([
      { ID: "previews", AllowedMethod: ["GET"], AllowedOrigin: ["https://app.example.com"] },
    ]);
    return {
      host: s3Host(b.bucket),
      secrets: { JOURNEY_S3_SECRET: b.secret },
      plan: planOf(
        {
          type: "s3",
          region: S3_REGION,
          accessKeyId: b.accessKeyId,
          secretAccessKey: { secret: "JOURNEY_S3_SECRET" },
        },
        "s3.corsOrigin",
        { bucket: b.bucket, rule: "previews", origin: "https://{scope}.preview.example.com" },
      ),
      entry: (scope) => `https://${scope}.preview.example.com`,
      entries: async () => (await b.stored())?.rules?.[0]?.AllowedOrigin ?? [],
      unrelated: ["https://app.example.com"],
    };
  },
  async google() {
    const p = await iamProjectWithClient(["https://app.example.com/callback"]);
    return {
      host: IAM_HOST,
      secrets: { JOURNEY_GOOGLE_KEY: p.account.keyJson },
      plan: planOf(
        { type: "google", serviceAccountKey: { secret: "JOURNEY_GOOGLE_KEY" } },
        "google.oauthClientRedirectUri",
        { ...p.params("https://{scope}.preview.example.com/callback") },
      ),
      entry: (scope) => `https://${scope}.preview.example.com/callback`,
      entries: async () => (await p.client())?.allowedRedirectUris ?? [],
      unrelated: ["https://app.example.com/callback"],
    };
  },
  async recaptcha() {
    const p = await recaptchaProjectWithKey(["app.example.com"]);
    return {
      host: RECAPTCHA_HOST,
      secrets: { JOURNEY_RECAPTCHA_KEY: p.account.keyJson },
      plan: planOf(
        { type: "recaptcha", serviceAccountKey: { secret: "JOURNEY_RECAPTCHA_KEY" } },
        "recaptcha.domain",
        p.params("{scope}.preview.example.com"),
      ),
      entry: (scope) => `${scope}.preview.example.com`,
      entries: p.domainsNow,
      unrelated: ["app.example.com"],
    };
  },
  async entra() {
    const t = await entraTenant({ spa: ["https://app.example.com/"] });
    return {
      host: GRAPH_HOST,
      secrets: { JOURNEY_ENTRA_SECRET: t.secret },
      plan: planOf(
        {
          type: "entra",
          tenant: t.domain,
          clientId: t.clientId,
          clientSecret: { secret: "JOURNEY_ENTRA_SECRET" },
        },
        "entra.redirectUri",
        t.params("spa", "https://{scope}.preview.example.com/"),
      ),
      entry: (scope) => `https://${scope}.preview.example.com/`,
      entries: async () => (await t.app())?.spa.redirectUris ?? [],
      unrelated: ["https://app.example.com/"],
    };
  },
  async cognito() {
    const p = await userPoolWithClient({ CallbackURLs: ["https://app.example.com/callback"] });
    return {
      host: cognitoHost(COGNITO_REGION),
      secrets: { JOURNEY_COGNITO_SECRET: p.secret },
      plan: planOf(
        {
          type: "cognito",
          region: COGNITO_REGION,
          accessKeyId: p.accessKeyId,
          secretAccessKey: { secret: "JOURNEY_COGNITO_SECRET" },
        },
        "cognito.callbackUrl",
        p.params("https://{scope}.preview.example.com/callback"),
      ),
      entry: (scope) => `https://${scope}.preview.example.com/callback`,
      entries: async () => (await p.stored())?.CallbackURLs ?? [],
      unrelated: ["https://app.example.com/callback"],
    };
  },
  async keycloak() {
    const k = await keycloakRealm({ redirectUris: ["https://app.example.com/callback"] });
    return {
      host: k.host,
      secrets: { JOURNEY_KEYCLOAK_SECRET: k.secret },
      plan: planOf(
        {
          type: "keycloak",
          host: k.host,
          realm: "previews",
          clientId: "sponson",
          clientSecret: { secret: "JOURNEY_KEYCLOAK_SECRET" },
        },
        "keycloak.redirectUri",
        { client: CLIENT, url: "https://{scope}.preview.example.com/callback" },
      ),
      entry: (scope) => `https://${scope}.preview.example.com/callback`,
      entries: async () => (await k.record())?.rep.redirectUris ?? [],
      unrelated: ["https://app.example.com/callback"],
    };
  },
  async clerk() {
    const c = await clerkInstanceWith({ allowedOrigins: ["capacitor://localhost"] });
    return {
      host: CLERK_HOST,
      secrets: { JOURNEY_CLERK_KEY: c.secretKey },
      plan: planOf(
        { type: "clerk", instance: c.instance, secretKey: { secret: "JOURNEY_CLERK_KEY" } },
        "clerk.allowedOrigin",
        { origin: "https://{scope}.preview.example.com" },
      ),
      entry: (scope) => `https://${scope}.preview.example.com`,
      entries: async () => (await c.stored())?.allowed_origins ?? [],
      unrelated: ["capacitor://localhost"],
    };
  },
};

async function race(provider: string, parentLocks: boolean, { dropPrecondition = false } = {}) {
  const shared = await (PROVIDERS[provider] as () => Promise<SharedObject>)();
  if (dropPrecondition) await shared.dropPrecondition?.();
  const engine = testEngine({ bindings: { ...shared.secrets }, controls: { parentLocks } });
  const base = Math.floor(Math.random() * 1e6) * 100;
  const scopes = Array.from({ length: SCOPES }, (_, i) => `pr-${base + i}`);
  // Without parent locks every run's read is held until all have read, so all decide from the
  // same list (the race, made certain). With them a run reads only under its lease, one at a time:
  // a barrier waiting for all reads would never open, and nothing needs holding.
  if (!parentLocks) await configureHost(shared.host, { readBarrier: SCOPES });
  const runs = await Promise.all(
    scopes.map((scope) =>
      engine.apply({
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope,
        plan: shared.plan,
        wait: true,
        waitTimeoutMs: 60_000,
      }),
    ),
  );
  await configureHost(shared.host, {});
  const have = await shared.entries();
  const lost = scopes.map(shared.entry).filter((e) => !have.includes(e));
  return { runs, have, lost, shared };
}

describe.each(Object.keys(PROVIDERS))("concurrent scopes on one %s object", (provider) => {
  it(`${SCOPES} scopes add one entry each at once, with parent locks: every entry survives`, async () => {
    const { runs, have, lost, shared } = await race(provider, true);
    expect(runs.map((r) => r.run.status)).toEqual(Array(SCOPES).fill("succeeded"));
    expect(lost).toEqual([]);
    expect(have.slice(0, shared.unrelated.length)).toEqual(shared.unrelated);
    expect(have).toHaveLength(shared.unrelated.length + SCOPES);
  });

  if (provider === "gcs") {
    it("control case without parent locks: the precondition catches the race (412, re-read, retry), nothing lost", async () => {
      const before = await gcsPreconditionFailures();
      const { runs, lost } = await race(provider, false);
      expect(runs.map((r) => r.run.error ?? r.run.status)).toEqual(Array(SCOPES).fill("succeeded"));
      expect(await gcsPreconditionFailures()).toBeGreaterThan(before);
      expect(lost).toEqual([]);
    });
  } else if (provider === "googleapikey") {
    it("control case without parent locks: the etag catches the race (409 ABORTED, re-read, decided again), nothing lost", async () => {
      const before = await staleEtagRefusals();
      const { runs, lost } = await race(provider, false);
      expect(runs.map((r) => r.run.error ?? r.run.status)).toEqual(Array(SCOPES).fill("succeeded"));
      expect(await staleEtagRefusals()).toBeGreaterThan(before);
      expect(lost).toEqual([]);
    });

    it("losing control: no parent locks and a key whose updates ignore the etag — every run says succeeded, and entries are lost", async () => {
      const before = await staleEtagRefusals();
      const { runs, lost } = await race(provider, false, { dropPrecondition: true });
      expect(runs.every((r) => r.run.status === "succeeded")).toBe(true);
      expect(await staleEtagRefusals()).toBe(before);
      expect(lost.length).toBeGreaterThan(0);
    });
  } else {
    it("control case without parent locks: every run says succeeded, and entries are lost", async () => {
      const { runs, lost } = await race(provider, false);
      expect(runs.every((r) => r.run.status === "succeeded")).toBe(true);
      expect(lost.length).toBeGreaterThan(0);
    });
  }
});
