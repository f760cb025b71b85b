/**
 * An adopted entry becomes one its scope removes, so it must be one its scope could have written:
 * the environment's write policy (and the URL shape check) decides, as for any plan line (docs/
 * design.md, "Plans and connections"); what it refuses stays as it is. Every apply is in the audit
 * trail, intent first (docs/design.md, "Audit before acting"); a dry run, which changes nothing, is not.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../workers/audit/audit-trail";
import { adopt, adoptionBody, callbacks, dayOne, ownership, PR_PATTERN, prUrl } from "../../helpers/adoption";
import { call, testApp } from "../../helpers/app";
import { freshAuth0Domain } from "../../helpers/emulators";
import { appIdentity } from "../../helpers/engine";

const app = testApp();

async function auditEntries(): Promise<AuditEntry[]> {
  const res = await call(app, "GET", "/v1/audit?limit=1000");
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: AuditEntry[] }).entries;
}

describe("the write policy decides what may be adopted", () => {
  it("an entry the environment's policy does not admit stays foreign; those it admits are adopted", async () => {
    const day = await dayOne(freshAuth0Domain("policy"), { open: 3, closed: 0 });
    const [allowed, other] = day.open as [number, number];
    const policy = {
      version: 1,
      environments: {
        preview: { parents: [appIdentity(day.domain)], items: [prUrl(allowed), "https://*.new.example.com"] },
      },
    };
    const res = await call(
      app,
      "POST",
      "/v1/adopt",
      adoptionBody(day, { apply: true, patterns: [PR_PATTERN] }),
      undefined,
      { ...env, SPONSON_POLICY: JSON.stringify(policy) },
    );
    expect(res.status).toBe(200);
    const result = (await res.json()) as Awaited<ReturnType<typeof adopt>>;
    expect(result.entries.find((e) => e.key === prUrl(allowed))?.outcome).toBe("adopted");
    expect(result.entries.find((e) => e.key === prUrl(other))).toMatchObject({
      outcome: "kept",
      reason: "policy",
      rule: "policy.environments.preview.items",
    });
    expect(await ownership(day.domain, prUrl(other))).toMatchObject({ owners: [], foreign: true });
    expect(await callbacks(day.domain)).toEqual(day.entries);
  });
});

describe("the audit trail", () => {
  it("records an apply (intent, then what it adopted and removed); a dry run leaves no record", async () => {
    const day = await dayOne(freshAuth0Domain("audit"), { open: 2, closed: 1 });
    const mine = (entries: AuditEntry[]) =>
      entries.filter((e) => e.kind === "adoption" && e.parent === appIdentity(day.domain));

    await adopt(app, adoptionBody(day, { removeClosed: true }));
    expect(mine(await auditEntries())).toEqual([]);

    const result = await adopt(app, adoptionBody(day, { apply: true, removeClosed: true }));
    const [record] = mine(await auditEntries());
    expect(record).toMatchObject({
      kind: "adoption",
      status: "done",
      runId: result.runId,
      environment: "preview",
      op: "auth0.callbackUrl",
      removeClosed: true,
    });
    expect(record && "entries" in record ? record.entries : undefined).toEqual(
      expect.arrayContaining([
        { key: prUrl(day.open[0] as number), scope: `pr-${day.open[0]}`, outcome: "adopted" },
        { key: prUrl(day.open[1] as number), scope: `pr-${day.open[1]}`, outcome: "adopted" },
        { key: prUrl(day.closed[0] as number), scope: `pr-${day.closed[0]}`, outcome: "removed" },
      ]),
    );
    expect(record && "actor" in record ? record.actor : undefined).toBeTruthy();
  });
});
