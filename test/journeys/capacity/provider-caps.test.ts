/**
 * Control for issue 32's capacity check: without it, a run that takes a shared list past the
 * provider's cap learns so from the provider in the middle of the run. The plan's first line (on an
 * object with room) is written; the second (on an object at its cap) is refused with the
 * provider's own error, and the run rolls the first back; the full object keeps exactly what it
 * held. The check before the write prevents this (list-full.test.ts); here it is off (`listCaps: false`).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { emulatorTransport } from "../../../dev/entry/dev-env";
import type { Env } from "../../../shared/env";
import type { Plan } from "../../../shared/schemas/plan";
import { createEngine } from "../../../workers/wiring/wire";
import { userPoolWithClient } from "../../adapters/cognito/user-pool";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { recaptchaProjectWithKey } from "../../adapters/recaptcha/recaptcha-key";
import { s3BucketWithCors } from "../../adapters/s3/s3-bucket";
import { connectionOf, testEnv } from "../../helpers/connections";
import { auth0Client, freshAuth0Domain, seedAuth0Tenant } from "../../helpers/emulators";
import { COGNITO_REGION } from "../../helpers/emulators-cognito";
import { graphApp, seedGraphApp } from "../../helpers/emulators-entra";
import { S3_REGION } from "../../helpers/emulators-s3";
import { auth0Connection, TEST_M2M } from "../../helpers/plans";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";

const filled = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com/cb`);

interface CapCase {
  secrets: Record<string, string>;
  plan: Plan;
  /** The first line's object: written before the refusal, then rolled back. */
  roomy(): Promise<string[]>;
  /** The object at its cap. */
  full(): Promise<unknown>;
  /** The provider's refusal as the run reports it. */
  refusal: { status: number; providerCode: string; message: RegExp };
}

let n = 0;
const line = (id: string, op: string, connection: string, params: Record<string, string>) => ({
  id,
  op,
  connection,
  params,
});

const CASES: Record<string, () => Promise<CapCase>> = {
  async entra() {
    const roomy = await entraTenant({ spa: [] });
    const full = await entraTenant({ spa: filled(100, "kept") });
    // Personal Microsoft accounts sign in: the cap is 100 redirect URIs, not 256.
    const app = await graphApp(full.tenantId, full.application);
    if (!app) throw new Error("no app");
    await seedGraphApp(full.tenantId, { ...app, signInAudience: "AzureADandPersonalMicrosoftAccount" });
    n += 1;
    const conn = (t: typeof roomy, secret: string) =>
      connectionOf(`caps-entra-${n}-${secret}`, {
        type: "entra",
        tenant: t.domain,
        clientId: t.clientId,
        clientSecret: { secret },
      });
    return {
      secrets: { CAPS_ENTRA_A: roomy.secret, CAPS_ENTRA_B: full.secret },
      plan: {
        version: 2,
        lines: [
          line(
            "a",
            "entra.redirectUri",
            conn(roomy, "CAPS_ENTRA_A"),
            roomy.params("spa", "https://{scope}.example.com/"),
          ),
          line(
            "b",
            "entra.redirectUri",
            conn(full, "CAPS_ENTRA_B"),
            full.params("spa", "https://{scope}.example.com/"),
          ),
        ],
      },
      roomy: async () => (await roomy.app())?.spa.redirectUris ?? [],
      full: full.app,
      refusal: {
        status: 400,
        providerCode: "Request_BadRequest",
        message: /^entra: 400 One or more properties contains invalid values\.$/,
      },
    };
  },
  async cognito() {
    const roomy = await userPoolWithClient({ CallbackURLs: [] });
    const full = await userPoolWithClient({ CallbackURLs: filled(100, "kept") });
    n += 1;
    const conn = (p: typeof roomy, secret: string) =>
      connectionOf(`caps-cognito-${n}-${secret}`, {
        type: "cognito",
        region: COGNITO_REGION,
        accessKeyId: p.accessKeyId,
        secretAccessKey: { secret },
      });
    return {
      secrets: { CAPS_COGNITO_A: roomy.secret, CAPS_COGNITO_B: full.secret },
      plan: {
        version: 2,
        lines: [
          line(
            "a",
            "cognito.callbackUrl",
            conn(roomy, "CAPS_COGNITO_A"),
            roomy.params("https://{scope}.example.com/cb"),
          ),
          line(
            "b",
            "cognito.callbackUrl",
            conn(full, "CAPS_COGNITO_B"),
            full.params("https://{scope}.example.com/cb"),
          ),
        ],
      },
      roomy: async () => (await roomy.stored())?.CallbackURLs ?? [],
      full: full.stored,
      refusal: {
        status: 400,
        providerCode: "InvalidParameterException",
        message: /^cognito: 400 1 validation error detected: Value '\[https:\/\/kept-0\.example\.com\/cb, /,
      },
    };
  },
  async auth0() {
    const domain = freshAuth0Domain("caps");
    await seedAuth0Tenant(domain, {
      m2m: TEST_M2M,
      clients: { roomy: { web_origins: [] }, full: { web_origins: filled(100, "kept") } },
    });
    const conn = auth0Connection(domain);
    return {
      secrets: {},
      plan: {
        version: 2,
        lines: [
          line("a", "auth0.webOrigin", conn, { client: "roomy", url: "https://{scope}.example.com" }),
          line("b", "auth0.webOrigin", conn, { client: "full", url: "https://{scope}.example.com" }),
        ],
      },
      roomy: async () => (await auth0Client(domain, "roomy"))?.web_origins ?? [],
      full: () => auth0Client(domain, "full"),
      refusal: {
        status: 400,
        providerCode: "invalid_body",
        message:
          /^auth0: 400 Payload validation error: 'Array is too long \(101\), maximum 100' on property web_origins\.$/,
      },
    };
  },
  async recaptcha() {
    const roomy = await recaptchaProjectWithKey([]);
    const full = await recaptchaProjectWithKey(
      Array.from({ length: 250 }, (_, i) => `kept-${i}.example.com`),
    );
    n += 1;
    const conn = (secret: string) =>
      connectionOf(`caps-recaptcha-${n}-${secret}`, { type: "recaptcha", serviceAccountKey: { secret } });
    return {
      secrets: { CAPS_RECAPTCHA_A: roomy.account.keyJson, CAPS_RECAPTCHA_B: full.account.keyJson },
      plan: {
        version: 2,
        lines: [
          line("a", "recaptcha.domain", conn("CAPS_RECAPTCHA_A"), roomy.params("{scope}.example.com")),
          line("b", "recaptcha.domain", conn("CAPS_RECAPTCHA_B"), full.params("{scope}.example.com")),
        ],
      },
      roomy: roomy.domainsNow,
      full: full.key,
      refusal: {
        status: 400,
        providerCode: "INVALID_ARGUMENT",
        message: /^recaptcha: 400 Invalid argument: 251 allowed domains; a key supports at most 250\./,
      },
    };
  },
  async s3() {
    const rules = Array.from({ length: 100 }, (_, i) => ({
      ID: `kept-${i}`,
      AllowedMethod: ["GET"],
      AllowedOrigin: [`https://kept-${i}.example.com`],
    }));
    const roomy = await s3BucketWithCors([]);
    const full = await s3BucketWithCors(rules);
    n += 1;
    const conn = (b: typeof roomy, secret: string) =>
      connectionOf(`caps-s3-${n}-${secret}`, {
        type: "s3",
        region: S3_REGION,
        accessKeyId: b.accessKeyId,
        secretAccessKey: { secret },
      });
    // Each scope gets a rule of its own: the 101st rule is past S3's cap.
    const params = (b: typeof roomy) => ({
      bucket: b.bucket,
      rule: "{scope}",
      origin: "https://{scope}.example.com",
    });
    return {
      secrets: { CAPS_S3_A: roomy.secret, CAPS_S3_B: full.secret },
      plan: {
        version: 2,
        lines: [
          line("a", "s3.corsOrigin", conn(roomy, "CAPS_S3_A"), params(roomy)),
          line("b", "s3.corsOrigin", conn(full, "CAPS_S3_B"), params(full)),
        ],
      },
      roomy: async () => ((await roomy.stored())?.rules ?? []).flatMap((r) => r.AllowedOrigin),
      full: full.stored,
      refusal: {
        status: 400,
        providerCode: "InvalidRequest",
        message: /^s3: 400 The number of CORS rules should not exceed allowed limit of 100 rules\.$/,
      },
    };
  },
};

describe.each(Object.keys(CASES))(
  "a run that takes a %s list past its cap (no capacity check)",
  (provider) => {
    it("fails mid-run with the provider's own refusal: the first line written and rolled back, the full object kept as it was", async () => {
      const c = await (CASES[provider] as () => Promise<CapCase>)();
      const before = await c.full();
      const engine = createEngine(testEnv({ ...env, ...c.secrets } as Env), emulatorTransport, {
        controls: { listCaps: false },
      });
      const scope = `pr-${Math.floor(Math.random() * 1e6)}`;
      const result = await engine.apply({
        repository: DEFAULT_REPOSITORY,
        environment: "preview",
        scope,
        plan: c.plan,
        wait: true,
        waitTimeoutMs: 60_000,
      });
      expect(result.run.status).toBe("failed");
      expect(result.run.error?.code).toBe("PROVIDER_ERROR");
      expect(result.run.error?.message).toMatch(c.refusal.message);
      expect(result.run.error?.detail).toMatchObject({
        status: c.refusal.status,
        providerCode: c.refusal.providerCode,
      });
      // The first line was written, then undone by the failed run's rollback: a round trip for nothing.
      expect(result.lines.map((l) => [l.id, l.result])).toEqual([
        ["a", "rolled-back"],
        ["b", "failed"],
      ]);
      expect((await c.roomy()).filter((e) => e.includes(scope))).toEqual([]);
      expect(await c.full()).toEqual(before);
    });
  },
);
