/**
 * docs/design.md, "Lease protocol": no token exchange is made while the run holds a lease. Firebase, GCS
 * reCAPTCHA and Google API keys (Google's jwt-bearer grant) and Kinde (client credentials) buy their token in the adapter's `prepare`,
 * which the engine runs before the scope lease; every later call reuses it.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parentLockKey } from "../../shared/lock-keys";
import type { Plan } from "../../shared/schemas/plan";
import type { RunResult } from "../../shared/schemas/run";
import { SecretRegistry } from "../../shared/secrets";
import { clearTokenCache } from "../../workers/adapters/http";
import { lockStub } from "../../workers/locks/lock-target";
import { apiKeyWith, KEY } from "../adapters/apikeys/api-key";
import { firebaseProject } from "../adapters/firebase/firebase-project";
import { bucketWithCors } from "../adapters/gcs/gcs-bucket";
import { APP, kindeBusiness, M2M } from "../adapters/kinde/kinde-business";
import { recaptchaProjectWithKey, SITE_KEY } from "../adapters/recaptcha/recaptcha-key";
import { call, testApp } from "../helpers/app";
import { registerConnection } from "../helpers/connections";
import { freshPr } from "../helpers/engine";

interface Subject {
  plan: Plan;
  secrets: Record<string, string>;
  /** The parent object's identity, or null (Kinde items are objects of their own). */
  identity: string | null;
  isTokenRequest(url: URL): boolean;
}

const googleToken = (url: URL) => url.host === "oauth2.googleapis.com" && url.pathname === "/token";

const SUBJECTS: Record<string, () => Promise<Subject>> = {
  async firebase() {
    const p = await firebaseProject(["localhost"]);
    return {
      plan: {
        version: 2,
        lines: [
          {
            id: "domain",
            op: "firebase.authorizedDomain",
            connection: registerConnection("prepare-firebase", {
              type: "firebase",
              secrets: { serviceAccountKey: "PREPARE_GOOGLE_KEY" },
            }),
            params: { project: p.project, domain: "{scope}.preview.example.com" },
          },
        ],
      },
      secrets: { PREPARE_GOOGLE_KEY: p.account.keyJson },
      identity: `firebase:${p.project}:config`,
      isTokenRequest: googleToken,
    };
  },
  async gcs() {
    const b = await bucketWithCors([{ origin: ["https://app.example.com"], method: ["GET"] }]);
    return {
      plan: {
        version: 2,
        lines: [
          {
            id: "origin",
            op: "gcs.corsOrigin",
            connection: registerConnection("prepare-gcs", {
              type: "gcs",
              secrets: { serviceAccountKey: "PREPARE_GOOGLE_KEY" },
            }),
            params: { bucket: b.bucket, rule: "#0", origin: "https://{scope}.preview.example.com" },
          },
        ],
      },
      secrets: { PREPARE_GOOGLE_KEY: b.account.keyJson },
      identity: `gcs:${b.bucket}:cors`,
      isTokenRequest: googleToken,
    };
  },
  async recaptcha() {
    const p = await recaptchaProjectWithKey(["localhost"]);
    return {
      plan: {
        version: 2,
        lines: [
          {
            id: "captcha",
            op: "recaptcha.domain",
            connection: registerConnection("prepare-recaptcha", {
              type: "recaptcha",
              secrets: { serviceAccountKey: "PREPARE_GOOGLE_KEY" },
            }),
            params: p.params("{scope}.preview.example.com"),
          },
        ],
      },
      secrets: { PREPARE_GOOGLE_KEY: p.account.keyJson },
      identity: `recaptcha:${p.project}:key:${SITE_KEY}`,
      isTokenRequest: googleToken,
    };
  },
  async googleapikey() {
    const k = await apiKeyWith(["https://app.example.com/*"]);
    return {
      plan: {
        version: 2,
        lines: [
          {
            id: "referrer",
            op: "googleapikey.referrer",
            connection: registerConnection("prepare-googleapikey", {
              type: "googleapikey",
              secrets: { serviceAccountKey: "PREPARE_GOOGLE_KEY" },
            }),
            params: k.params("https://{scope}.preview.example.com/*"),
          },
        ],
      },
      secrets: { PREPARE_GOOGLE_KEY: k.account.keyJson },
      identity: `googleapikey:${k.project}:key:${KEY}`,
      isTokenRequest: googleToken,
    };
  },
  async kinde() {
    const k = await kindeBusiness({ redirect_urls: [] });
    return {
      plan: {
        version: 2,
        lines: [
          {
            id: "callback",
            op: "kinde.callbackUrl",
            connection: registerConnection(`prepare-kinde-${k.domain}`, {
              type: "kinde",
              config: { domain: k.domain, clientId: M2M.clientId },
              secrets: { clientSecret: "PREPARE_KINDE_SECRET" },
            }),
            params: { app: APP, url: "https://{scope}.preview.example.com/callback" },
          },
        ],
      },
      secrets: { PREPARE_KINDE_SECRET: M2M.clientSecret },
      identity: `kinde:${k.domain}:app:${APP}`,
      isTokenRequest: (url) => url.host === k.domain && url.pathname === "/oauth2/token",
    };
  },
};

async function held(key: string | null): Promise<boolean> {
  return key === null ? false : (await lockStub(env, key).read({ key })).held;
}

describe.each(Object.keys(SUBJECTS))("%s: the token exchange and the leases", (provider) => {
  it("the token is fetched before the scope lease is taken, never under a lease, and reused after", async () => {
    const subject = await (SUBJECTS[provider] as () => Promise<Subject>)();
    const scope = freshPr();
    const scopeKey = `scope:186853002/preview/${scope}`;
    const parentKey = subject.identity ? await parentLockKey(subject.identity, new SecretRegistry()) : null;
    clearTokenCache();
    const tokenCalls: Array<{ scopeHeld: boolean; parentHeld: boolean }> = [];
    const providerCalls: string[] = [];
    const app = testApp({
      engine: {
        wrapFetch: (inner) => async (input, init) => {
          const url = new URL(new Request(input, init).url);
          providerCalls.push(url.host);
          if (subject.isTokenRequest(url)) {
            tokenCalls.push({ scopeHeld: await held(scopeKey), parentHeld: await held(parentKey) });
          }
          return inner(input, init);
        },
      },
    });
    const res = await call(
      app,
      "POST",
      `/v1/scopes/preview/${scope}/apply`,
      { plan: subject.plan },
      {},
      {
        ...env,
        ...subject.secrets,
      },
    );
    const result = (await res.json()) as RunResult;
    expect(result.run.status).toBe("succeeded");
    expect(result.lines.map((l) => l.diff)).toEqual(["create"]);
    expect(tokenCalls).toEqual([{ scopeHeld: false, parentHeld: false }]);
    // Reads and the write came after, with the same token: more calls than the one exchange.
    expect(providerCalls.length).toBeGreaterThan(2);
  });
});
