/**
 * Providers that forget a write (docs/design.md): Graph may not show a successful PATCH to the next
 * GET, so a holder reading under the parent lease can miss the previous holder's write — the lease
 * serializes, yet entries are lost. The Graph emulator holds every write back from reads for ten
 * minutes here (far longer than the test), so every read sees the application as seeded. With the
 * parent lock's memory of recent writes merged over the read, nothing is lost and nothing removed
 * comes back; the control (merge off) loses entries and resurrects a removed one. Write combining
 * is off: a holder that writes its waiters' changes with its own hides the lag for runs that
 * overlap, but runs that follow one another each read and write alone.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/schemas/plan";
import { entraTenant } from "../../adapters/entra/entra-tenant";
import { connectionOf } from "../../helpers/connections";
import { graphApp, setGraphLag } from "../../helpers/emulators-entra";
import { DEFAULT_REPOSITORY } from "../../helpers/repositories";
import { testEngine } from "../../helpers/test-engine";

const SCOPES = 4;
const LAG_MS = 600_000;
const UNRELATED = "https://app.example.com/signin-oidc";

let connections = 0;
async function world(recentWrites: boolean, combining = false) {
  const t = await entraTenant({ web: [UNRELATED] });
  connections += 1;
  const connection = connectionOf(`lag-entra-${connections}`, {
    type: "entra",
    tenant: t.domain,
    clientId: t.clientId,
    clientSecret: { secret: "LAG_ENTRA_SECRET" },
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
  const engine = testEngine({
    bindings: { LAG_ENTRA_SECRET: t.secret },
    controls: { recentWrites },
    combining,
  });
  const base = Math.floor(Math.random() * 1e6) * 100;
  const scope = (i: number) => `pr-${base + i}`;
  const entry = (s: string) => `https://${s}.preview.example.com/signin-oidc`;
  const run = (s: string, action: "apply" | "destroy") =>
    action === "apply"
      ? engine.apply({
          repository: DEFAULT_REPOSITORY,
          environment: "preview",
          scope: s,
          plan,
          wait: true,
          waitTimeoutMs: 60_000,
        })
      : engine.destroy({
          repository: DEFAULT_REPOSITORY,
          environment: "preview",
          scope: s,
          wait: true,
          waitTimeoutMs: 60_000,
        });
  /** What Graph holds (its newest version), not what a lagging read shows. */
  const held = async () => (await graphApp(t.tenantId, t.application))?.web.redirectUris ?? [];
  return { scope, entry, run, held };
}

afterEach(async () => {
  await setGraphLag(0);
});

describe("an Entra application whose reads lag its writes", () => {
  it(`${SCOPES} scopes add one URI each at once: with the recent-writes merge every URI survives`, async () => {
    const w = await world(true);
    await setGraphLag(LAG_MS);
    const scopes = Array.from({ length: SCOPES }, (_, i) => w.scope(i));
    const runs = await Promise.all(scopes.map((s) => w.run(s, "apply")));
    expect(runs.map((r) => r.run.error ?? r.run.status)).toEqual(Array(SCOPES).fill("succeeded"));
    const held = await w.held();
    expect(held[0]).toBe(UNRELATED);
    expect([...held].sort()).toEqual([UNRELATED, ...scopes.map(w.entry)].sort());
  });

  it("with write combining on (the default) as well: runs that queue and runs that follow lose nothing", async () => {
    const w = await world(true, true);
    await setGraphLag(LAG_MS);
    const first = Array.from({ length: SCOPES }, (_, i) => w.scope(i));
    await Promise.all(first.map((s) => w.run(s, "apply")));
    const later = w.scope(SCOPES);
    expect((await w.run(later, "apply")).run.status).toBe("succeeded");
    expect([...(await w.held())].sort()).toEqual([UNRELATED, ...[...first, later].map(w.entry)].sort());
  });

  it("control, merge off: every run says succeeded, and all but the last holder's URI are lost", async () => {
    const w = await world(false);
    await setGraphLag(LAG_MS);
    const scopes = Array.from({ length: SCOPES }, (_, i) => w.scope(i));
    const runs = await Promise.all(scopes.map((s) => w.run(s, "apply")));
    expect(runs.every((r) => r.run.status === "succeeded")).toBe(true);
    const held = await w.held();
    const lost = scopes.map(w.entry).filter((e) => !held.includes(e));
    expect(lost).toHaveLength(SCOPES - 1);
    expect(held[0]).toBe(UNRELATED);
  });

  it("a URI removed while reads still show it is not brought back by the next holder", async () => {
    const w = await world(true);
    const [a, b] = [w.scope(0), w.scope(1)];
    await w.run(a, "apply");
    await setGraphLag(LAG_MS);
    expect((await w.run(a, "destroy")).run.status).toBe("succeeded");
    expect((await w.run(b, "apply")).run.status).toBe("succeeded");
    expect(await w.held()).toEqual([UNRELATED, w.entry(b)]);
  });

  it("control, merge off: the removed URI comes back with the next holder's write", async () => {
    const w = await world(false);
    const [a, b] = [w.scope(0), w.scope(1)];
    await w.run(a, "apply");
    await setGraphLag(LAG_MS);
    await w.run(a, "destroy");
    await w.run(b, "apply");
    expect(await w.held()).toEqual([UNRELATED, w.entry(a), w.entry(b)]);
  });
});
