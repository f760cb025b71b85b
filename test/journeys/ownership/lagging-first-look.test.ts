/**
 * The reads made before any lease on a provider that forgets writes (Entra; docs/design.md,
 * "Providers that forget a write"): the first look of a re-apply and the orphan search merge the
 * parent lock's recent writes too, not only the read under the lease. Without it a re-apply within
 * Graph's lag reports its own entry missing and takes it over as this run's creation (so rolling
 * that run back would remove what an earlier run made and the plan still wants), and the search
 * reports an entry a destroy just removed as an orphan. A peek at the lock's memory that fails
 * stops the run before its lease (retriable); a simulated crash thrown there stops it too.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import type { LockProvider } from "../../../workers/engine/deps";
import { SimulatedCrash } from "../../../workers/engine/simulated-crash";
import type { EngineOverrides } from "../../../workers/wiring/wire";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { connectionOf } from "../../helpers/connections";
import { graphApp, setGraphLag } from "../../helpers/emulators-entra";
import { receipt } from "../../helpers/engine";
import { overriding } from "../../helpers/lock-overrides";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const LAG_MS = 600_000;

async function world(overrides: EngineOverrides = {}) {
  const t = await entraTenant({ web: [] });
  const secretName = `FIRST_LOOK_SECRET_${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
  const connection = connectionOf(`first-look-${crypto.randomUUID().slice(0, 8)}`, {
    type: "entra",
    tenant: t.domain,
    clientId: t.clientId,
    clientSecret: { secret: secretName },
  });
  const plan: Plan = {
    version: 2,
    lines: [
      {
        id: "web",
        op: "entra.redirectUri",
        connection,
        params: t.params("web", "https://{scope}.preview.example.com/signin-oidc"),
      },
    ],
  };
  const engine = testEngine({ bindings: { [secretName]: t.secret }, ...overrides });
  const scope = `pr-${Math.floor(Math.random() * 1e6) * 100 + 1}`;
  const req = { repository: DEFAULT_REPOSITORY, environment: "preview", scope, wait: true };
  const url = `https://${scope}.preview.example.com/signin-oidc`;
  const held = async () => (await graphApp(t.tenantId, t.application))?.web.redirectUris ?? [];
  return { engine, plan, req, url, held, scope };
}

afterEach(async () => {
  await setGraphLag(0);
});

describe("reads before the lease on a lagging Entra application", () => {
  it("a re-apply within the lag finds its entry through the lock's memory: unchanged, no drift, the ledger still names the run that made it", async () => {
    const w = await world();
    await setGraphLag(LAG_MS);
    const first = await w.engine.apply({ ...w.req, plan: w.plan });
    expect(first.lines.map((l) => l.result)).toEqual(["created"]);

    const again = await w.engine.apply({ ...w.req, plan: w.plan });
    expect(again.run.status).toBe("succeeded");
    expect(again.drift).toEqual([]);
    expect(again.lines.map((l) => l.result)).toEqual(["unchanged"]);
    expect((await receipt("preview", w.scope)).ledger.map((e) => e.runId)).toEqual([first.run.id]);
    expect(await w.held()).toEqual([w.url]);
  });

  it("the orphan search does not report an entry a destroy removed while reads still show it", async () => {
    const w = await world();
    const applied = await w.engine.apply({ ...w.req, plan: w.plan });
    const parent = (await receipt("preview", w.scope)).ledger[0]?.parent as string;
    expect(applied.lines.map((l) => l.result)).toEqual(["created"]);
    await setGraphLag(LAG_MS);
    expect((await w.engine.destroy(w.req)).lines.map((l) => l.result)).toEqual(["removed"]);
    expect(await w.held()).toEqual([]);

    const search = await w.engine.orphans(parent);
    expect(search.problems).toEqual([]);
    expect(search.orphans.map((o) => o.key)).toEqual([]);
  });

  it("a peek at the lock's memory that fails stops the re-apply before its lease: a retriable 503, nothing written, the ledger still names the run that made the entry", async () => {
    const peeks = { failing: false, calls: 0 };
    const w = await world({ wrapLocks: failingPeeks(peeks, () => overloaded()) });
    await setGraphLag(LAG_MS);
    const first = await w.engine.apply({ ...w.req, plan: w.plan });
    expect(first.lines.map((l) => l.result)).toEqual(["created"]);
    const before = await receipt("preview", w.scope);

    peeks.failing = true;
    const calls = peeks.calls;
    const refused = await w.engine.apply({ ...w.req, plan: w.plan });
    expect(peeks.calls).toBe(calls + 1);
    // Graph's read alone would report the entry missing, answer `created` and move the ledger entry
    // to this run; refusing keeps the answer true and the ledger with the run that made it.
    expect(refused.run).toMatchObject({ status: "failed", error: { code: "LOCK_UNAVAILABLE" } });
    expect(refused.lines.map((l) => l.result)).toEqual(["failed"]);
    expect(await w.held()).toEqual([w.url]);
    expect((await receipt("preview", w.scope)).ledger).toEqual(before.ledger);
  });

  it("a simulated crash thrown by the peek is not swallowed: the run stops at its first look, before any write", async () => {
    const peeks = { failing: false, calls: 0 };
    const w = await world({ wrapLocks: failingPeeks(peeks, () => new SimulatedCrash("after-acquire")) });
    const first = await w.engine.apply({ ...w.req, plan: w.plan });
    expect(first.run.status).toBe("succeeded");
    const before = await receipt("preview", w.scope);

    peeks.failing = true;
    const calls = peeks.calls;
    const died = await w.engine.apply({ ...w.req, plan: w.plan }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(died).toBeInstanceOf(SimulatedCrash);
    expect(peeks.calls).toBe(calls + 1);
    // Stopped before its lease: nothing written, the receipt as the first run left it.
    expect(await w.held()).toEqual([w.url]);
    expect(await receipt("preview", w.scope)).toEqual(before);
  });
});

const overloaded = () =>
  Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
    overloaded: true,
  });

/** Parent locks whose peek at their recent writes throws `error()` while `peeks.failing`. */
function failingPeeks(peeks: { failing: boolean; calls: number }, error: () => Error) {
  return (inner: LockProvider): LockProvider => ({
    ...inner,
    parent: async (identity) => {
      const target = await inner.parent(identity);
      return overriding(target, {
        peekRecentWrites: (req) => {
          peeks.calls += 1;
          return peeks.failing ? Promise.reject(error()) : target.peekRecentWrites(req);
        },
      });
    },
  });
}
