/**
 * Clerk's redirect URLs have owners (docs/design.md, "Ownership of shared entries"): two scopes
 * wanting one URL, a crashed create's recovery, and a URL a person created right before our POST
 * never cost anyone a URL they still want. The three cases a review found lost entries in while
 * the URLs had no parent lease.
 */
import { describe, expect, it } from "vitest";
import { clerkKeys, clerkRedirectUrl } from "../../../dev/emulators/clerk";
import type { Plan } from "../../../shared/schemas/plan";
import type { RepositoryRef } from "../../../shared/schemas/repository";
import { SimulatedCrash } from "../../../workers/engine/simulated-crash";
import { CLERK_HOST, clerkInstanceWith } from "../../adapters/clerk/clerk-instance";
import { connectionOf } from "../../helpers/connections";
import { emulatorStub } from "../../helpers/emulators";
import { freshPr, receipt } from "../../helpers/engine";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { type TestEngineOptions, testEngine } from "../../helpers/test-engine";

const PER_SCOPE = "https://{scope}.preview.example.com/sso-callback";
const FIXED = "my-app://oauth-callback";
const urlOf = (scope: string) => `https://${scope}.preview.example.com/sso-callback`;
let n = 0;

async function world(lines: string[] = [PER_SCOPE]) {
  const c = await clerkInstanceWith({});
  n += 1;
  const secret = `CLERK_OWNERS_KEY_${n}`;
  const connection = connectionOf(`owners-clerk-${n}-${c.instance}`, {
    type: "clerk",
    instance: c.instance,
    secretKey: { secret },
  });
  const plan: Plan = {
    version: 2,
    lines: lines.map((url, i) => ({ id: `sso${i}`, op: "clerk.redirectUrl", connection, params: { url } })),
  };
  const engine = (options: TestEngineOptions = {}) =>
    testEngine({ ...options, bindings: { ...options.bindings, [secret]: c.secretKey } });
  const urls = async () => (await c.redirectUrls()).map((r) => r.url).sort();
  return { c, plan, engine, urls };
}

const at = (scope: string, repository: RepositoryRef = DEFAULT_REPOSITORY) => ({
  repository,
  environment: "preview",
  scope,
  wait: true,
  waitTimeoutMs: 30_000,
});

describe("clerk.redirectUrl: a URL two scopes want", () => {
  it("(a) repositories A and B both want pr-N's URL and a fixed one: A's destroy leaves both to B; B's removes them", async () => {
    const s = await world([PER_SCOPE, FIXED]);
    const scope = freshPr();
    const B: RepositoryRef = { id: 700_000_000 + Math.floor(Math.random() * 1e6), name: "octo-b/app" };
    const e = s.engine();
    const a = await e.apply({ ...at(scope), plan: s.plan });
    expect(a.run.status).toBe("succeeded");
    expect(a.lines.map((l) => l.result)).toEqual(["created", "created"]);
    const b = await e.apply({ ...at(scope, B), plan: s.plan });
    expect(b.run.status).toBe("succeeded");
    expect(b.lines.map((l) => l.result)).toEqual(["shared", "shared"]);
    expect(await s.urls()).toEqual([urlOf(scope), FIXED].sort());

    const gone = await e.destroy(at(scope));
    expect(gone.run.status).toBe("succeeded");
    expect(gone.lines.map((l) => l.result)).toEqual(["released", "released"]);
    expect(await s.urls()).toEqual([urlOf(scope), FIXED].sort());

    expect((await e.destroy(at(scope, B))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([]);
  });

  it("(b) A's create crashed after its intent; B created the URL; A's recovery leaves B's URL", async () => {
    const s = await world();
    const [a, b] = [freshPr(), freshPr()];
    // Both scopes want one URL: a fixed line with the scope's URL would differ per scope.
    const shared = { ...s.plan, lines: s.plan.lines.map((l) => ({ ...l, params: { url: FIXED } })) };
    const crashing = s.engine({
      faults: (point) => {
        if (point === "after-intent") throw new SimulatedCrash(point);
      },
    });
    await expect(crashing.apply({ ...at(a), plan: shared })).rejects.toThrow(SimulatedCrash);
    expect(await s.urls()).toEqual([]);
    expect((await receipt("preview", a)).intents).toHaveLength(1);

    const e = s.engine();
    expect((await e.apply({ ...at(b), plan: shared })).lines[0]?.result).toBe("created");
    const recovered = await e.apply({ ...at(a), plan: shared });
    expect(recovered.run.status).toBe("succeeded");
    expect(recovered.warnings.join(" ")).toContain("recovered 1 intent");
    expect(await s.urls()).toEqual([FIXED]);

    expect((await e.destroy(at(a))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([FIXED]);
    expect((await e.destroy(at(b))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([]);
  });

  it("(c) a person creates the URL right before A's POST: Clerk refuses the duplicate, and A never removes it", async () => {
    const s = await world();
    const scope = freshPr();
    const stub = emulatorStub(CLERK_HOST);
    let raced = false;
    const e = s.engine({
      wrapFetch: (inner) => async (input, init) => {
        const req = new Request(input, init);
        if (!raced && req.method === "POST" && new URL(req.url).pathname === "/v1/redirect_urls") {
          raced = true;
          const id = `ru_person${s.c.instance.slice(4, 14)}`;
          await stub.seed({ [clerkKeys.redirect(s.c.instance, id)]: clerkRedirectUrl(id, urlOf(scope), 1) });
        }
        return inner(req);
      },
    });
    const applied = await e.apply({ ...at(scope), plan: s.plan });
    expect(raced).toBe(true);
    expect(applied.run.status).toBe("succeeded");
    expect(applied.lines[0]?.result).not.toBe("created");
    expect((await receipt("preview", scope)).ledger.map((l) => l.holding)).not.toContain("created");

    expect((await e.destroy(at(scope))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([urlOf(scope)]);
  });
});

describe("clerk.redirectUrl under the policy's parents pin", () => {
  it("a policy pinning instance X refuses a line on instance Y's connection (403) before any request", async () => {
    const s = await world();
    const requests: string[] = [];
    const policy = JSON.stringify({
      version: 1,
      environments: {
        preview: { parents: ["clerk:instance:ins_pinnedX"], items: ["https://*.preview.example.com/*"] },
      },
    });
    const e = s.engine({ requests, bindings: { SPONSON_POLICY: policy } });
    await expect(e.apply({ ...at(freshPr()), plan: s.plan })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect(requests).toEqual([]);
    expect(await s.urls()).toEqual([]);
  });
});
