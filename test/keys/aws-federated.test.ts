/**
 * docs/design.md, "Federated connections": S3 and Cognito connections configured as federated
 * take temporary credentials from AWS STS AssumeRoleWithWebIdentity with a token the service mints
 * for that connection's subject; the emulated STS checks it as AWS does (issuer discovery, JWKS by
 * kid, aud against the OIDC provider's client ids, the role's trust policy on sub, exp), and the
 * emulated S3 and Cognito require the session token with the temporary key.
 */
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../shared/clock";
import { apply, call, destroy, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { trustingRole } from "../helpers/emulators-aws-sts";
import { COGNITO_REGION, cognitoClient, seedCognito, userPoolClient } from "../helpers/emulators-cognito";
import { freshS3Bucket, S3_REGION, s3Bucket, seedS3 } from "../helpers/emulators-s3";
import { freshPr, receipt } from "../helpers/engine";

const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/;

afterEach(() => vi.restoreAllMocks());

/** Every outbound request of the app: URL, headers, body and the answer's text. */
function recordedApp(clock = systemClock) {
  const sent: Array<{ url: string; headers: Headers; body: string; answer: string }> = [];
  const app = testApp({
    engine: {
      clock,
      isolateTokenCache: false,
      wrapFetch: (inner) => async (input, init) => {
        const request = new Request(input, init);
        const body = await request.clone().text();
        const response = await inner(request);
        sent.push({
          url: request.url,
          headers: request.headers,
          body,
          answer: await response.clone().text(),
        });
        return response;
      },
    },
  });
  return { app, sent };
}

function captureLogs(): string[] {
  const logged: string[] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
  return logged;
}

/** What an exchange handed out: the minted token, the secret key and the session token. */
function exchangedSecrets(sent: Array<{ url: string; body: string; answer: string }>): string[] {
  const out: string[] = [];
  for (const r of sent.filter((s) => new URL(s.url).host.startsWith("sts."))) {
    out.push(new URLSearchParams(r.body).get("WebIdentityToken") ?? "");
    for (const field of ["SecretAccessKey", "SessionToken"]) {
      const value = r.answer.match(new RegExp(`<${field}>([^<]+)</${field}>`))?.[1];
      if (value) out.push(value);
    }
  }
  return out.filter((s) => s !== "");
}

async function s3Federated(name: string, trusted = name) {
  const roleArn = await trustingRole(trusted);
  const { bucket } = freshS3Bucket("fed");
  await seedS3(bucket, {
    bucket: { region: S3_REGION, rules: [] },
    roles: { [roleArn]: { access: "full" } },
  });
  registerConnection(name, { type: "s3", config: { region: S3_REGION }, federated: { roleArn } });
  return { bucket, roleArn };
}

const s3Plan = (connection: string, bucket: string, origin: string) => ({
  version: 2,
  lines: [{ id: "cors", op: "s3.corsOrigin", connection, params: { bucket, rule: "previews", origin } }],
});

describe("a federated S3 connection", () => {
  it("applies and destroys on temporary credentials; no token, secret key or session token is kept or shown", async () => {
    const { bucket } = await s3Federated("s3-fed-run");
    const logged = captureLogs();
    const { app, sent } = recordedApp();
    const scope = freshPr();
    const origin = `https://${scope}.preview.example.com`;
    const applied = await call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
      plan: s3Plan("s3-fed-run", bucket, origin),
    });
    const appliedText = await applied.text();
    expect(applied.status).toBe(200);
    expect((await s3Bucket(bucket))?.rules?.[0]?.AllowedOrigin).toEqual([origin]);
    const sts = sent.filter((s) => new URL(s.url).host === `sts.${S3_REGION}.amazonaws.com`);
    expect(sts).toHaveLength(1);
    const form = new URLSearchParams(sts[0]?.body);
    expect(form.get("Action")).toBe("AssumeRoleWithWebIdentity");
    expect(form.get("RoleSessionName")).toBe("sponson-s3-fed-run");
    expect(form.get("DurationSeconds")).toBe("900");
    expect(sts[0]?.headers.get("authorization")).toBeNull();
    const s3Calls = sent.filter((s) => new URL(s.url).host.startsWith(`${bucket}.s3.`));
    expect(s3Calls.length).toBeGreaterThan(0);
    for (const c of s3Calls) expect(c.headers.get("x-amz-security-token")).toBeTruthy();

    const destroyed = await call(app, "POST", `/v1/scopes/preview/${scope}/destroy`, {});
    const destroyedText = await destroyed.text();
    expect(destroyed.status).toBe(200);
    expect((await s3Bucket(bucket))?.rules ?? []).toEqual([]);
    // No isolate cache: the destroy's credentials came from the fleet's token object, not a new exchange.
    expect(sent.filter((s) => new URL(s.url).host.startsWith("sts."))).toHaveLength(1);

    const secrets = exchangedSecrets(sent);
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    const seen = [
      appliedText,
      destroyedText,
      JSON.stringify([...applied.headers, ...destroyed.headers]),
      JSON.stringify(await receipt("preview", scope)),
      await (await call(app, "GET", `/v1/scopes/preview/${scope}/ledger`)).text(),
      await (await call(app, "GET", "/v1/locks")).text(),
      ...logged,
    ];
    expect(seen.join("\n")).toContain(origin);
    for (const text of seen) {
      expect(text).not.toMatch(JWT);
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});

describe("one exchange per connection", () => {
  it("a burst of five runs on fresh isolates assumes the role once", async () => {
    const { bucket } = await s3Federated("s3-fed-burst");
    const { app, sent } = recordedApp();
    const scopes = Array.from({ length: 5 }, () => freshPr());
    const answers = await Promise.all(
      scopes.map((scope) =>
        call(app, "POST", `/v1/scopes/preview/${scope}/apply`, {
          plan: s3Plan("s3-fed-burst", bucket, `https://${scope}.preview.example.com`),
          wait: true,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(sent.filter((s) => new URL(s.url).host.startsWith("sts."))).toHaveLength(1);
    expect((await s3Bucket(bucket))?.rules?.[0]?.AllowedOrigin).toHaveLength(5);
  });
});

describe("a federated Cognito connection", () => {
  it("applies and destroys on temporary credentials carrying X-Amz-Security-Token", async () => {
    const roleArn = await trustingRole("cognito-fed-run");
    const id = crypto.randomUUID().replaceAll("-", "");
    const pool = `${COGNITO_REGION}_${id.slice(0, 9)}`;
    const client = id.slice(0, 26);
    await seedCognito({
      pool,
      clients: [userPoolClient(pool, client, { CallbackURLs: ["https://app.example.com/cb"] })],
      roles: { [roleArn]: { access: "full" } },
    });
    registerConnection("cognito-fed-run", {
      type: "cognito",
      config: { region: COGNITO_REGION },
      federated: { roleArn },
    });
    const { app, sent } = recordedApp();
    const scope = freshPr();
    const url = `https://${scope}.preview.example.com/callback`;
    const plan = {
      version: 2,
      lines: [
        {
          id: "cb",
          op: "cognito.callbackUrl",
          connection: "cognito-fed-run",
          params: { userPool: pool, client, url },
        },
      ],
    };
    const applied = await apply(app, "preview", scope, plan as never);
    expect(applied.run.status).toBe("succeeded");
    expect((await cognitoClient(pool, client))?.CallbackURLs).toEqual(["https://app.example.com/cb", url]);
    const calls = sent.filter((s) => new URL(s.url).host.startsWith("cognito-idp."));
    for (const c of calls) expect(c.headers.get("x-amz-security-token")).toBeTruthy();
    await destroy(app, "preview", scope);
    expect((await cognitoClient(pool, client))?.CallbackURLs).toEqual(["https://app.example.com/cb"]);
    const text = JSON.stringify(applied) + JSON.stringify(await receipt("preview", scope));
    for (const secret of exchangedSecrets(sent)) expect(text).not.toContain(secret);
  });
});

describe("an exchange STS refuses fails the run naming the connection and AWS's code, with no provider request", () => {
  async function refusedRun(
    name: string,
    options: { trusted?: string; clientIds?: string[]; clock?: typeof systemClock; bindings?: typeof env },
  ) {
    const roleArn = await trustingRole(options.trusted ?? name, options.clientIds);
    const { bucket } = freshS3Bucket("ref");
    await seedS3(bucket, {
      bucket: { region: S3_REGION, rules: [] },
      roles: { [roleArn]: { access: "full" } },
    });
    registerConnection(name, { type: "s3", config: { region: S3_REGION }, federated: { roleArn } });
    const { app, sent } = recordedApp(options.clock);
    const scope = freshPr();
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/apply`,
      { plan: s3Plan(name, bucket, `https://${scope}.preview.example.com`) },
      {},
      options.bindings,
    );
    const text = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get("server-timing") ?? "").not.toMatch(JWT);
    expect(text).toContain(name);
    expect(text).not.toMatch(JWT);
    for (const secret of exchangedSecrets(sent)) expect(text).not.toContain(secret);
    // The exchange was tried; nothing reached the bucket.
    expect(sent.some((s) => new URL(s.url).host.startsWith("sts."))).toBe(true);
    expect(sent.filter((s) => new URL(s.url).host.includes(".s3."))).toEqual([]);
    expect((await s3Bucket(bucket))?.rules).toEqual([]);
    return text;
  }

  it("a token for another connection's subject: AccessDenied", async () => {
    expect(await refusedRun("s3-fed-sub", { trusted: "s3-fed-someone-else" })).toContain("AccessDenied");
  });

  it("an audience the OIDC provider does not list: InvalidIdentityToken", async () => {
    expect(await refusedRun("s3-fed-aud", { clientIds: ["some-other-client"] })).toContain(
      "InvalidIdentityToken",
    );
  });

  it("an expired token (the service's clock an hour behind): ExpiredTokenException", async () => {
    const clock = { ...systemClock, now: () => Date.now() - 3_600_000 };
    expect(await refusedRun("s3-fed-exp", { clock })).toContain("ExpiredTokenException");
  });

  it("a token signed with a key the issuer no longer publishes: InvalidIdentityToken", async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const ring = {
      keys: [{ ...(await exportJWK(privateKey)), kid: "test-federation-retired", status: "current" }],
    };
    const bindings = { ...env, FEDERATION_SIGNING_KEY: JSON.stringify(ring) } as typeof env;
    expect(await refusedRun("s3-fed-kid", { bindings })).toContain("InvalidIdentityToken");
  });
});
