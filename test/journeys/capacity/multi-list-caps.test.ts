/**
 * Caps that span more than the op's own list (docs/design.md, "Lists at their cap"): Entra counts
 * the redirect URIs of every platform of the application (100 when personal accounts sign in), S3
 * the CORS rules of the bucket and the bytes of its document. Refused LIST_FULL under the lease
 * before any provider write; the control (no check: the provider's error mid-run) is
 * provider-caps.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { type S3CorsRule, serializeCorsXml } from "../../../workers/adapters/s3/cors-xml";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { s3BucketWithCors } from "../../adapters/s3/s3-bucket";
import { connectionOf } from "../../helpers/connections";
import { graphApp, seedGraphApp } from "../../helpers/emulators-entra";
import { S3_REGION } from "../../helpers/emulators-s3";
import { freshPr, receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const filled = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com/cb`);

const writes = (requests: string[]) =>
  requests.filter((r) => !r.startsWith("GET ") && !r.includes("/token") && !r.includes("/oauth2/"));

async function apply(secrets: Record<string, string>, requests: string[], plan: Plan, scope = freshPr()) {
  const engine = testEngine({ requests, bindings: { ...secrets } });
  const result = await engine.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
  return { result, scope };
}

let n = 0;

describe("entra: the cap counts every platform of the application", () => {
  async function entraCase(lists: { web?: string[]; spa?: string[] }, personal: boolean) {
    const t = await entraTenant(lists);
    if (personal) {
      const app = await graphApp(t.tenantId, t.application);
      if (!app) throw new Error("no app");
      await seedGraphApp(t.tenantId, { ...app, signInAudience: "AzureADandPersonalMicrosoftAccount" });
    }
    n += 1;
    const conn = connectionOf(`mcap-entra-${n}`, {
      type: "entra",
      tenant: t.domain,
      clientId: t.clientId,
      clientSecret: { secret: "MCAP_ENTRA" },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "spa",
          op: "entra.redirectUri",
          connection: conn,
          params: t.params("spa", "https://{scope}.example.com/"),
        },
      ],
    };
    return { t, plan, secrets: { MCAP_ENTRA: t.secret } };
  }

  it("256 URIs over web and spa: the next spa URI is refused before the PATCH", async () => {
    const { t, plan, secrets } = await entraCase({ web: filled(200, "web"), spa: filled(56, "spa") }, false);
    const before = await t.app();
    const requests: string[] = [];
    const { result, scope } = await apply(secrets, requests, plan);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "entra.redirectUri" },
      cap: 256,
      entries: 256,
      after: 257,
    });
    expect(requests.some((r) => r.startsWith("GET ") && r.includes("/applications/"))).toBe(true);
    expect(writes(requests)).toEqual([]);
    expect(await t.app()).toEqual(before);
    expect((await receipt("preview", scope)).intents).toEqual([]);
  });

  it("personal accounts sign in: 100 URIs is the cap", async () => {
    const { t, plan, secrets } = await entraCase({ web: filled(60, "web"), spa: filled(40, "spa") }, true);
    const before = await t.app();
    const requests: string[] = [];
    const { result } = await apply(secrets, requests, plan);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ cap: 100, entries: 100, after: 101 });
    expect(writes(requests)).toEqual([]);
    expect(await t.app()).toEqual(before);
  });

  it("control: with room on the application the same line is written", async () => {
    const { t, plan, secrets } = await entraCase({ web: filled(60, "web"), spa: filled(39, "spa") }, true);
    const requests: string[] = [];
    const { result, scope } = await apply(secrets, requests, plan);
    expect(result.run.status).toBe("succeeded");
    expect((await t.app())?.spa.redirectUris).toContain(`https://${scope}.example.com/`);
  });
});

describe("s3: the cap counts the bucket's CORS rules and the document's bytes", () => {
  async function s3Case(rules: Parameters<typeof s3BucketWithCors>[0], rule: string) {
    const b = await s3BucketWithCors(rules);
    n += 1;
    const conn = connectionOf(`mcap-s3-${n}`, {
      type: "s3",
      region: S3_REGION,
      accessKeyId: b.accessKeyId,
      secretAccessKey: { secret: "MCAP_S3" },
    });
    const plan: Plan = {
      version: 2,
      lines: [
        {
          id: "cors",
          op: "s3.corsOrigin",
          connection: conn,
          params: { bucket: b.bucket, rule, origin: "https://{scope}.example.com" },
        },
      ],
    };
    return { b, plan, secrets: { MCAP_S3: b.secret } };
  }
  const rulesOf = (count: number, origins = 1) =>
    Array.from({ length: count }, (_, i) => ({
      ID: `kept-${i}`,
      AllowedMethod: ["GET"],
      AllowedOrigin: Array.from({ length: origins }, (_, j) => `https://kept-${i}-${j}.example.com`),
    }));

  /** 40 rules whose document is 30 bytes short of 64 KB: no origin element fits in 30 bytes. */
  function nearlyFullDocument(): S3CorsRule[] {
    const rules = rulesOf(40);
    const size = () => new TextEncoder().encode(serializeCorsXml(rules)).length;
    const target = 65_536 - 30;
    for (let i = 0; size() < target - 110; i += 1)
      (rules[i % rules.length] as S3CorsRule).AllowedOrigin.push(`https://k-${i}.example.com`);
    const pad = target - size() - "<AllowedOrigin>https://.example.com</AllowedOrigin>".length;
    (rules[0] as S3CorsRule).AllowedOrigin.push(`https://${"p".repeat(pad)}.example.com`);
    expect(size()).toBe(target);
    return rules;
  }

  it("100 rules: a line that would add the 101st rule is refused before the PUT", async () => {
    const { b, plan, secrets } = await s3Case(rulesOf(100), "{scope}");
    const before = await b.stored();
    const requests: string[] = [];
    const { result } = await apply(secrets, requests, plan);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "s3.corsOrigin" },
      cap: 100,
      entries: 100,
      after: 101,
    });
    expect(writes(requests)).toEqual([]);
    expect(await b.stored()).toEqual(before);
  });

  it("100 rules: an origin added to an existing rule still fits", async () => {
    const { b, plan, secrets } = await s3Case(rulesOf(100), "kept-7");
    const requests: string[] = [];
    const { result, scope } = await apply(secrets, requests, plan);
    expect(result.run.status).toBe("succeeded");
    const rules = (await b.stored())?.rules ?? [];
    expect(rules).toHaveLength(100);
    expect(rules[7]?.AllowedOrigin).toContain(`https://${scope}.example.com`);
  });

  it("a document at 64 KB: an origin that would take it past is refused before the PUT", async () => {
    // Rules grown until one more origin of the line's length would take the XML past 64 KB.
    const { b, plan, secrets } = await s3Case(nearlyFullDocument(), "kept-3");
    const before = await b.stored();
    const requests: string[] = [];
    const { result } = await apply(secrets, requests, plan);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({ list: { op: "s3.corsOrigin" }, maxBytes: 65_536 });
    expect(writes(requests)).toEqual([]);
    expect(await b.stored()).toEqual(before);
  });
});
