/**
 * docs/design.md, "Federated connections": a gcs, firebase, google, recaptcha or googleapikey connection configured as
 * federated holds no service-account key. The service mints a token for the connection's subject,
 * Google STS exchanges it (RFC 8693) after checking it against the issuer's discovery and JWKS, and
 * IAM credentials issues the service account's access token to the federated principal the
 * account's roles/iam.workloadIdentityUser binding names.
 */
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { SecretRegistry } from "../../shared/secrets";
import { connectionSubject, federationIssuer, mintFederationToken } from "../../workers/keys/federation";
import { apply, call, destroy, observedApp, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { emulatorStub } from "../helpers/emulators";
import {
  APIKEYS_HOST,
  apiKey,
  apiKeyRecord,
  seedApiKey,
  seedApiKeysProject,
} from "../helpers/emulators-apikeys";
import { freshGoogleProject, identityProject, seedIdentityProject } from "../helpers/emulators-firebase";
import { freshBucket, GCS_HOST, gcsBucket, seedBucket } from "../helpers/emulators-gcs";
import { iamClient, iamOAuthClient, seedIamClient, seedIamProject } from "../helpers/emulators-google-iam";
import {
  type FederatedGoogle,
  IAM_CREDENTIALS_HOST,
  STS_HOST,
  seedFederatedGoogle,
  stsExchange,
} from "../helpers/emulators-google-sts";
import {
  RECAPTCHA_HOST,
  recaptchaKey,
  recaptchaWebKey,
  seedRecaptchaKey,
  seedRecaptchaProject,
} from "../helpers/emulators-recaptcha";
import { freshPr } from "../helpers/engine";

const ISSUER = "https://sponson.test";
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/;
const ACCESS_TOKEN = /ya29\./;

const issuer = () => {
  const configured = federationIssuer(env as unknown as Record<string, unknown>);
  if (!configured) throw new Error("FEDERATION_SIGNING_KEY / SPONSON_PUBLIC_URL bindings missing");
  return configured;
};
/** The `aud` Google's default allowed audience accepts: the provider's name with `https:`. */
const audOf = (audience: string) => `https:${audience}`;
const mint = (connection: string, aud: string, nowMs = Date.now()) =>
  mintFederationToken(issuer(), { connection, audience: aud, nowMs }, new SecretRegistry());

function connect(name: string, type: string, google: FederatedGoogle): string {
  return registerConnection(name, {
    type,
    federated: { audience: google.audience, serviceAccount: google.serviceAccount },
  });
}

const planOf = (connection: string, op: string, params: Record<string, string>) => ({
  version: 2,
  lines: [{ id: "line", op, connection, params }],
});

/** What a run left for anyone to read: its answer, the scope's ledger and receipt list. */
async function leftBehind(scope: string, answers: string[]): Promise<string> {
  const { app } = observedApp();
  const ledger = await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`);
  return answers.join("\n") + (await ledger.text());
}

describe("Google STS checks the service's token", () => {
  it("exchanges the connection's own token, with or without https: in aud (control)", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("g-sts-control")]);
    for (const aud of [audOf(g.audience), g.audience]) {
      const res = await stsExchange(g.audience, await mint("g-sts-control", aud));
      expect(res.status).toBe(200);
      expect(res.body.access_token).toMatch(ACCESS_TOKEN);
    }
  });

  it("refuses another connection's subject when the attribute condition names one: unauthorized_client", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("g-sts-a")], {
      subjects: [connectionSubject("g-sts-a")],
    });
    const res = await stsExchange(g.audience, await mint("g-sts-b", audOf(g.audience)));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("unauthorized_client");
    expect(res.body.access_token).toBeUndefined();
  });

  it("refuses a wrong audience: invalid_grant", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("g-sts-aud")]);
    const res = await stsExchange(g.audience, await mint("g-sts-aud", "api://AzureADTokenExchange"));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect(res.body.error_description).toContain("audience");
  });

  it("refuses an expired token: invalid_grant", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("g-sts-exp")]);
    const res = await stsExchange(
      g.audience,
      await mint("g-sts-exp", audOf(g.audience), Date.now() - 3_600_000),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect(res.body.error_description).toMatch(/expired/i);
  });

  it("refuses a token signed by a retired key (not in the JWKS): invalid_grant", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("g-sts-kid")]);
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    expect(await exportJWK(privateKey)).toHaveProperty("d");
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: "test-federation-retired" })
      .setIssuer(ISSUER)
      .setSubject(connectionSubject("g-sts-kid"))
      .setAudience(audOf(g.audience))
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    const res = await stsExchange(g.audience, token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect(res.body.error_description).toMatch(/signature/i);
  });

  it("refuses an issuer the provider does not trust: invalid_grant", async () => {
    const g = await seedFederatedGoogle("https://elsewhere.example", [connectionSubject("g-sts-iss")]);
    const res = await stsExchange(g.audience, await mint("g-sts-iss", audOf(g.audience)));
    expect(res.body.error).toBe("invalid_grant");
    expect(res.body.error_description).toContain("issuer");
  });
});

describe("federated gcs, firebase, google, recaptcha and googleapikey connections", () => {
  it("gcs: applies and destroys through federated credentials; no token anywhere", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("gcs-fed-run")]);
    const connection = connect("gcs-fed-run", "gcs", g);
    const bucket = freshBucket();
    await seedBucket(bucket, { members: { [g.serviceAccount]: "admin" }, metageneration: 1, cors: [] });
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const { app, hosts } = observedApp();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: planOf(connection, "gcs.corsOrigin", { bucket, rule: "#0", origin }),
    });
    const answer = await res.text();
    expect(res.status, answer).toBe(200);
    expect(hosts).toEqual(expect.arrayContaining([STS_HOST, IAM_CREDENTIALS_HOST, GCS_HOST]));
    expect((await gcsBucket(bucket))?.cors).toEqual([expect.objectContaining({ origin: [origin] })]);
    const text = await leftBehind(scope, [answer, res.headers.get("server-timing") ?? ""]);
    expect(text).not.toMatch(JWT);
    expect(text).not.toMatch(ACCESS_TOKEN);
    await destroy(app, "preview", scope);
    expect((await gcsBucket(bucket))?.cors).toEqual([]);
  });

  it("firebase: applies and destroys an authorized domain through federated credentials", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("firebase-fed-run")]);
    const connection = connect("firebase-fed-run", "firebase", g);
    const project = freshGoogleProject();
    await seedIdentityProject(project, {
      members: { [g.serviceAccount]: "editor" },
      config: { authorizedDomains: ["localhost"] },
    });
    const scope = freshPr();
    const domain = `${scope}.preview.example.com`;
    const { app } = observedApp();
    const applied = await apply(
      app,
      "preview",
      scope,
      planOf(connection, "firebase.authorizedDomain", { project, domain }) as never,
    );
    expect(applied.run.status).toBe("succeeded");
    expect((await identityProject(project))?.config?.authorizedDomains).toEqual(["localhost", domain]);
    await destroy(app, "preview", scope);
    expect((await identityProject(project))?.config?.authorizedDomains).toEqual(["localhost"]);
  });

  it("google: applies and destroys an OAuth client's redirect URI through federated credentials", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("google-fed-run")]);
    const connection = connect("google-fed-run", "google", g);
    const project = freshGoogleProject();
    await seedIamProject(project, { members: { [g.serviceAccount]: "editor" } });
    await seedIamClient(project, iamOAuthClient(project, "previews-client", []));
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const { app } = observedApp();
    const applied = await apply(
      app,
      "preview",
      scope,
      planOf(connection, "google.oauthClientRedirectUri", {
        project,
        client: "previews-client",
        url,
      }) as never,
    );
    expect(applied.run.status).toBe("succeeded");
    expect((await iamClient(project, "previews-client"))?.allowedRedirectUris).toEqual([url]);
    await destroy(app, "preview", scope);
    expect((await iamClient(project, "previews-client"))?.allowedRedirectUris).toEqual([]);
  });
  it("recaptcha: applies and destroys a key's allowed domain through federated credentials; no token anywhere", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("recaptcha-fed-run")]);
    const connection = connect("recaptcha-fed-run", "recaptcha", g);
    const project = freshGoogleProject();
    await seedRecaptchaProject(project, { members: { [g.serviceAccount]: "editor" } });
    await seedRecaptchaKey(project, recaptchaWebKey(project, "6LcFederated", ["localhost"]));
    const scope = freshPr();
    const domain = `${scope}.preview.example.com`;
    const { app, hosts } = observedApp();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: planOf(connection, "recaptcha.domain", { project, siteKey: "6LcFederated", domain }),
    });
    const answer = await res.text();
    expect(res.status, answer).toBe(200);
    expect(hosts).toEqual(expect.arrayContaining([STS_HOST, IAM_CREDENTIALS_HOST, RECAPTCHA_HOST]));
    expect((await recaptchaKey(project, "6LcFederated"))?.webSettings?.allowedDomains).toEqual([
      "localhost",
      domain,
    ]);
    const text = await leftBehind(scope, [answer, res.headers.get("server-timing") ?? ""]);
    expect(text).not.toMatch(JWT);
    expect(text).not.toMatch(ACCESS_TOKEN);
    await destroy(app, "preview", scope);
    expect((await recaptchaKey(project, "6LcFederated"))?.webSettings?.allowedDomains).toEqual(["localhost"]);
  });
});

describe("a federated googleapikey connection", () => {
  it("applies and destroys a key's referrer through federated credentials; no token anywhere", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("apikey-fed-run")]);
    const connection = connect("apikey-fed-run", "googleapikey", g);
    const project = freshGoogleProject();
    await seedApiKeysProject(project, { members: { [g.serviceAccount]: "admin" } });
    const restrictions = { browserKeyRestrictions: { allowedReferrers: ["https://app.example.com/*"] } };
    await seedApiKey(project, "previews-key", apiKeyRecord(project, "previews-key", restrictions));
    const referrers = async () => {
      const browser = (await apiKey(project, "previews-key"))?.key.restrictions?.browserKeyRestrictions;
      return (browser as { allowedReferrers?: string[] } | undefined)?.allowedReferrers;
    };
    const scope = freshPr();
    const referrer = `https://${scope}.preview.example.com/*`;
    const { app, hosts } = observedApp();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: planOf(connection, "googleapikey.referrer", { project, key: "previews-key", referrer }),
    });
    const answer = await res.text();
    expect(res.status, answer).toBe(200);
    expect(hosts).toEqual(expect.arrayContaining([STS_HOST, IAM_CREDENTIALS_HOST, APIKEYS_HOST]));
    expect(await referrers()).toEqual(["https://app.example.com/*", referrer]);
    const text = await leftBehind(scope, [answer, res.headers.get("server-timing") ?? ""]);
    expect(text).not.toMatch(JWT);
    expect(text).not.toMatch(ACCESS_TOKEN);
    await destroy(app, "preview", scope);
    expect(await referrers()).toEqual(["https://app.example.com/*"]);
  });
});

describe("a refused exchange fails the run naming the connection and Google's code", () => {
  async function refusedRun(connection: string, bucket: string) {
    const scope = freshPr();
    const { app, hosts } = observedApp();
    const res = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: planOf(connection, "gcs.corsOrigin", {
        bucket,
        rule: "#0",
        origin: `https://${scope}.preview.example.com`,
      }),
    });
    const text = await leftBehind(scope, [await res.text(), res.headers.get("server-timing") ?? ""]);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(text).toContain(connection);
    expect(text).not.toMatch(JWT);
    expect(text).not.toMatch(ACCESS_TOKEN);
    // No request reached the bucket: nothing was read or written with a token it should not have.
    expect(hosts).not.toContain(GCS_HOST);
    expect((await gcsBucket(bucket))?.cors).toEqual([]);
    return text;
  }

  const seededBucket = async (g: FederatedGoogle) => {
    const bucket = freshBucket();
    await seedBucket(bucket, { members: { [g.serviceAccount]: "admin" }, metageneration: 1, cors: [] });
    return bucket;
  };

  it("another connection's principal may impersonate the account, not this one: PERMISSION_DENIED", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("gcs-fed-someone-else")]);
    const text = await refusedRun(connect("gcs-fed-not-bound", "gcs", g), await seededBucket(g));
    expect(text).toContain("PERMISSION_DENIED");
    // Named once: `connection "x": federated credentials refused …`, never `connection "x": connection "x": …`.
    expect(text).toContain('connection \\"gcs-fed-not-bound\\": federated credentials refused');
    expect(text).not.toContain('connection \\"gcs-fed-not-bound\\": connection');
  });

  it("the attribute condition lets another subject in, not this one: unauthorized_client", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("gcs-fed-cond")], {
      subjects: [connectionSubject("gcs-fed-someone-else")],
    });
    const text = await refusedRun(connect("gcs-fed-cond", "gcs", g), await seededBucket(g));
    expect(text).toContain("unauthorized_client");
  });

  it("the provider trusts other audiences only: invalid_grant", async () => {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject("gcs-fed-aud")], {
      allowedAudiences: ["https://sts.example.com/other"],
    });
    const text = await refusedRun(connect("gcs-fed-aud", "gcs", g), await seededBucket(g));
    expect(text).toContain("invalid_grant");
  });
});

describe("one exchange per connection per token lifetime, fleet-wide", () => {
  const exchanges = async () => {
    const [sts, iam] = await Promise.all([
      emulatorStub(STS_HOST).stats(),
      emulatorStub(IAM_CREDENTIALS_HOST).stats(),
    ]);
    return sts.requests + iam.requests;
  };

  async function burst(name: string, sharedTokens: boolean): Promise<number> {
    const g = await seedFederatedGoogle(ISSUER, [connectionSubject(name)]);
    const connection = connect(name, "gcs", g);
    // A bucket per run: three runs that do not wait on each other's lock.
    const buckets = [freshBucket(), freshBucket(), freshBucket()];
    for (const bucket of buckets)
      await seedBucket(bucket, { members: { [g.serviceAccount]: "admin" }, metageneration: 1, cors: [] });
    // Every run as on a fresh isolate: only the fleet's token object can spare an exchange.
    const app = testApp({ engine: { isolateTokenCache: false, sharedTokens } });
    const before = await exchanges();
    const runs = await Promise.all(
      buckets.map(async (bucket) => {
        const scope = freshPr();
        const plan = planOf(connection, "gcs.corsOrigin", {
          bucket,
          rule: "#0",
          origin: `https://${scope}.preview.example.com`,
        });
        return apply(app, "preview", scope, plan as never);
      }),
    );
    expect(runs.map((r) => r.run.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    return (await exchanges()) - before;
  }

  it("a burst of three runs makes one STS exchange and one generateAccessToken", async () => {
    expect(await burst("gcs-fed-burst", true)).toBe(2);
  });

  it("without the fleet's token objects each run exchanges on its own (control)", async () => {
    expect(await burst("gcs-fed-burst-control", false)).toBeGreaterThan(2);
  });
});
