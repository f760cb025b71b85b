/**
 * Clerk's redirect URLs through the engine: objects of their own, written one by one under their
 * instance's lease (docs/design.md, "Ownership of shared entries"). A scope creates its URL,
 * records it (parent: the instance) and its destroy deletes it by id; a create whose answer was lost is
 * an unknown outcome the next run recovers, not doubled, and still removed on close; a URL that was there before the scope named it is not the scope's to remove.
 */
import { describe, expect, it } from "vitest";
import { parentLockKey } from "../../../shared/lock-keys";
import type { Plan } from "../../../shared/schemas/plan";
import { SecretRegistry } from "../../../shared/secrets";
import { CLERK_HOST, clerkInstanceWith } from "../../adapters/clerk/clerk-instance";
import { connectionOf } from "../../helpers/connections";
import { configureHost } from "../../helpers/emulators";
import { durableIntents, freshPr, receipt } from "../../helpers/engine";
import { endLockDelay } from "../../helpers/locks";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const URL_OF = (scope: string) => `https://${scope}.preview.example.com/sso-callback`;
let n = 0;

async function setup(redirectUrls: string[] = [], failure?: "missing") {
  const c = await clerkInstanceWith({ redirectUrls }, failure);
  n += 1;
  const secret = `CLERK_JOURNEY_KEY_${n}`;
  const connection = connectionOf(`journey-clerk-${n}-${c.instance}`, {
    type: "clerk",
    // "missing": the connection names an instance its key does not belong to.
    instance: c.ctx.config.instance as string,
    secretKey: { secret },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "sso",
        op: "clerk.redirectUrl",
        connection,
        params: { url: "https://{scope}.preview.example.com/sso-callback" },
      },
    ],
  };
  const requests: string[] = [];
  const engine = testEngine({ bindings: { [secret]: c.secretKey }, requests });
  const run = (scope: string) => ({
    repository: DEFAULT_REPOSITORY,
    environment: "preview",
    scope,
    wait: true,
  });
  const urls = async () => (await c.redirectUrls()).map((r) => r.url).sort();
  return { c, plan, engine, requests, run, urls };
}

describe("clerk.redirectUrl through the engine: an object of its own under its instance's lease", () => {
  it("apply creates it under the instance's lease and records it with the instance as parent; re-apply writes nothing; destroy deletes it by id", async () => {
    const s = await setup(["my-app://oauth-callback"]);
    const scope = freshPr();
    const applied = await s.engine.apply({ ...s.run(scope), plan: s.plan });
    expect(applied.run.status).toBe("succeeded");
    expect(applied.lines[0]).toMatchObject({
      op: "clerk.redirectUrl",
      key: URL_OF(scope),
      parent: `clerk:instance:${s.c.instance}`,
      result: "created",
    });
    // The scope's lease and the instance's.
    expect(applied.counts?.locks).toBe(2);
    expect((await receipt("preview", scope))?.ledger).toMatchObject([
      { key: URL_OF(scope), parent: `clerk:instance:${s.c.instance}` },
    ]);
    expect(await s.urls()).toEqual([URL_OF(scope), "my-app://oauth-callback"].sort());

    s.requests.length = 0;
    const again = await s.engine.apply({ ...s.run(scope), plan: s.plan });
    expect(again.lines[0]).toMatchObject({ diff: "unchanged", result: "unchanged" });
    // The key's instance checked once a run (it must be the lease's), then the URLs.
    expect(s.requests).toEqual([`GET ${CLERK_HOST}/v1/instance`, `GET ${CLERK_HOST}/v1/redirect_urls`]);

    const [mine] = (await s.c.redirectUrls()).filter((r) => r.url === URL_OF(scope));
    s.requests.length = 0;
    const destroyed = await s.engine.destroy(s.run(scope));
    expect(destroyed.run.status).toBe("succeeded");
    expect(destroyed.lines[0]).toMatchObject({ result: "removed" });
    expect(s.requests).toContain(`DELETE ${CLERK_HOST}/v1/redirect_urls/${mine?.id}`);
    expect(await s.urls()).toEqual(["my-app://oauth-callback"]);
  });

  it("a create whose answer was lost is an unknown outcome: the intent kept, the lease ended with the lock-delay; the next run recovers it (one URL, in the ledger) and the destroy removes it", async () => {
    const s = await setup();
    const scope = freshPr();
    await configureHost(CLERK_HOST, { loseWriteAnswers: 1 });
    let applied: Awaited<ReturnType<typeof s.engine.apply>>;
    try {
      applied = await s.engine.apply({ ...s.run(scope), plan: s.plan });
    } finally {
      await configureHost(CLERK_HOST, {});
    }
    expect(applied.run.status).toBe("failed");
    expect(applied.lines[0]?.error).toMatchObject({ code: "LOCK_LOST", detail: { outcome: "unknown" } });
    expect(s.requests.filter((r) => r.startsWith("POST"))).toHaveLength(2);
    expect(await s.urls()).toEqual([URL_OF(scope)]);
    expect((await durableIntents("preview", scope)).map((i) => i.key)).toEqual([URL_OF(scope)]);

    // The instance's lock-delay passes (its lease, still held, was released quietly); the scope's
    // next run recovers what it wanted.
    await endLockDelay(await parentLockKey(`clerk:instance:${s.c.instance}`, new SecretRegistry()));
    const again = await s.engine.apply({ ...s.run(scope), plan: s.plan });
    expect(again.run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([URL_OF(scope)]);
    expect((await receipt("preview", scope))?.ledger.map((e) => e.key)).toEqual([URL_OF(scope)]);

    expect((await s.engine.destroy(s.run(scope))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([]);
  });

  it("a URL that was there before the scope named it stays on destroy (not the scope's to remove)", async () => {
    const scope = freshPr();
    const s = await setup([URL_OF(scope)]);
    const applied = await s.engine.apply({ ...s.run(scope), plan: s.plan });
    expect(applied.run.status).toBe("succeeded");
    expect(applied.lines[0]).toMatchObject({ parent: `clerk:instance:${s.c.instance}`, result: "foreign" });
    expect(s.requests.filter((r) => !r.startsWith("GET"))).toEqual([]);
    expect((await receipt("preview", scope))?.ledger.map((e) => e.holding)).toEqual(["foreign"]);
    expect((await s.engine.destroy(s.run(scope))).run.status).toBe("succeeded");
    expect(await s.urls()).toEqual([URL_OF(scope)]);
  });

  it("a line cannot name another instance: its params are the URL alone, refused before any request", async () => {
    const s = await setup();
    const line = s.plan.lines[0] as Plan["lines"][number];
    const naming: Plan = {
      ...s.plan,
      lines: [{ ...line, params: { ...line.params, instance: "ins_other" } }],
    };
    // Refused while the plan is resolved: no run, no lease, no request.
    await expect(s.engine.apply({ ...s.run(freshPr()), plan: naming })).rejects.toMatchObject({
      code: "VALIDATION",
      message: 'line "sso" params: Unrecognized key: "instance"',
    });
    expect(s.requests).toEqual([]);
    expect(await s.urls()).toEqual([]);
  });

  it("a connection whose key is another instance's: refused (404) before any redirect-URL request, nothing written", async () => {
    const s = await setup([], "missing");
    const scope = freshPr();
    const applied = await s.engine.apply({ ...s.run(scope), plan: s.plan });
    expect(applied.run.status).toBe("failed");
    expect(applied.run.error?.code).toBe("PROVIDER_ERROR");
    expect(applied.run.error?.detail).toMatchObject({ provider: "clerk", status: 404 });
    expect(s.requests.filter((r) => !r.startsWith(`GET ${CLERK_HOST}/v1/instance`))).toEqual([]);
    expect(await s.urls()).toEqual([]);
    expect((await receipt("preview", scope))?.ledger ?? []).toEqual([]);
  });
});
