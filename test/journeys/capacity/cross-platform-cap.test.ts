/**
 * Caps measured on the whole object (docs/design.md, "Lists at their cap"): Entra counts the
 * redirect URIs of every platform of the application, so a group adding one web URI and one SPA
 * URI to an application holding 255 of 256 is measured with both applied and refused LIST_FULL
 * before any PATCH; the control, without the check, sends 257 and Graph refuses it mid-run. S3's
 * rules likewise. (Entra's platforms and S3's rules are each one op's; two ops sharing a measured
 * cap are test/engine/capacity/list-fill.test.ts.)
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { EngineControls } from "../../../workers/engine/controls";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { s3BucketWithCors } from "../../adapters/s3/s3-bucket";
import { connectionOf } from "../../helpers/connections";
import { S3_REGION } from "../../helpers/emulators-s3";
import { freshPr, receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const filled = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `https://${prefix}-${i}.example.com/cb`);

let n = 0;

/** An application at 255 of 256 (200 web, 55 SPA) and a plan adding one web and one SPA URI. */
async function almostFull() {
  const t = await entraTenant({ web: filled(200, "web"), spa: filled(55, "spa") });
  n += 1;
  const connection = connectionOf(`xcap-entra-${n}`, {
    type: "entra",
    tenant: t.domain,
    clientId: t.clientId,
    clientSecret: { secret: "XCAP_ENTRA" },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "web",
        op: "entra.redirectUri",
        connection,
        params: t.params("web", "https://{scope}.example.com/cb"),
      },
      {
        id: "spa",
        op: "entra.redirectUri",
        connection,
        params: t.params("spa", "https://{scope}.example.com/"),
      },
    ],
  };
  return { t, plan, secrets: { XCAP_ENTRA: t.secret } };
}

async function apply(
  c: { plan: Plan; secrets: Record<string, string> },
  requests: string[],
  controls: Partial<EngineControls> = {},
) {
  const scope = freshPr();
  const engine = testEngine({ requests, bindings: c.secrets, controls });
  const result = await engine.apply({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    plan: c.plan,
    wait: true,
    waitTimeoutMs: 30_000,
  });
  return { result, scope };
}

const patches = (requests: string[]) => requests.filter((r) => r.startsWith("PATCH "));

describe("entra: one group adding to two platforms is measured whole", () => {
  it("255 of 256 plus one web and one SPA URI: LIST_FULL before any PATCH", async () => {
    const c = await almostFull();
    const before = await c.t.app();
    const requests: string[] = [];
    const { result, scope } = await apply(c, requests);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "entra.redirectUri" },
      cap: 256,
      entries: 255,
      after: 257,
    });
    expect(requests.some((r) => r.startsWith("GET ") && r.includes("/applications/"))).toBe(true);
    expect(patches(requests)).toEqual([]);
    expect(await c.t.app()).toEqual(before);
    expect((await receipt("preview", scope)).intents).toEqual([]);
  });

  it("control: without the check the PATCH carries 257 URIs and Graph refuses it mid-run", async () => {
    const c = await almostFull();
    const before = await c.t.app();
    const requests: string[] = [];
    const { result } = await apply(c, requests, { listCaps: false });
    expect(result.run.error?.code).toBe("PROVIDER_ERROR");
    expect(result.run.error?.detail).toMatchObject({ status: 400, providerCode: "Request_BadRequest" });
    expect(patches(requests).length).toBeGreaterThan(0);
    expect(await c.t.app()).toEqual(before);
  });
});

describe("s3: one group adding two rules is measured whole", () => {
  it("99 of 100 rules plus two lines each making a rule: LIST_FULL before any PUT", async () => {
    const rules = Array.from({ length: 99 }, (_, i) => ({
      ID: `kept-${i}`,
      AllowedMethod: ["GET"],
      AllowedOrigin: [`https://kept-${i}.example.com`],
    }));
    const b = await s3BucketWithCors(rules);
    n += 1;
    const connection = connectionOf(`xcap-s3-${n}`, {
      type: "s3",
      region: S3_REGION,
      accessKeyId: b.accessKeyId,
      secretAccessKey: { secret: "XCAP_S3" },
    });
    const line = (id: string, rule: string) => ({
      id,
      op: "s3.corsOrigin",
      connection,
      params: { bucket: b.bucket, rule, origin: `https://{scope}.${id}.example.com` },
    });
    const c = {
      plan: { version: 2, lines: [line("a", "{scope}-a"), line("b", "{scope}-b")] } as Plan,
      secrets: { XCAP_S3: b.secret },
    };
    const before = await b.stored();
    const requests: string[] = [];
    const { result } = await apply(c, requests);
    expect(result.run.error?.code).toBe("LIST_FULL");
    expect(result.run.error?.detail).toMatchObject({
      list: { op: "s3.corsOrigin" },
      cap: 100,
      entries: 99,
      after: 101,
      // One answer, two units, each named: the cap counts rules, who holds them is counted in origins.
      counts: { cap: "CORS rules of the bucket", owners: "origins" },
    });
    expect(result.run.error?.message).toContain(
      "s3.corsOrigin's cap counts CORS rules of the bucket: 99 of at most 100",
    );
    expect(result.run.error?.message).toContain(
      "Each owner's entries count origins: a rule goes only when its last origin does",
    );
    expect(requests.filter((r) => r.startsWith("PUT "))).toEqual([]);
    expect(await b.stored()).toEqual(before);
  });
});
