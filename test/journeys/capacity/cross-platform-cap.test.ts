/**
 * Entra's cap counts the redirect URIs of every platform of the application (docs/design.md, "Lists
 * at their cap"): a group adding one web URI and one SPA URI to an application holding 255 of 256
 * is measured with both applied, and refused LIST_FULL before any PATCH. The control, without the
 * check, sends the 257 URIs and Graph refuses them mid-run.
 */
import { describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { connectionOf } from "../../helpers/connections";
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

async function apply(c: Awaited<ReturnType<typeof almostFull>>, requests: string[], uncapped: boolean) {
  const scope = freshPr();
  const engine = testEngine({ requests, bindings: c.secrets, ...(uncapped ? { uncapped } : {}) });
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
    const { result, scope } = await apply(c, requests, false);
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
    const { result } = await apply(c, requests, true);
    expect(result.run.error?.code).toBe("PROVIDER_ERROR");
    expect(result.run.error?.detail).toMatchObject({ status: 400, providerCode: "Request_BadRequest" });
    expect(patches(requests).length).toBeGreaterThan(0);
    expect(await c.t.app()).toEqual(before);
  });
});
