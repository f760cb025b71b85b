/**
 * An entry several scopes want is never lost when one of them goes. Eight scopes all want one
 * shared callback plus their own; the emulator's read barrier lines up every first read before
 * any write; then three scopes are destroyed at once. The shared entry survives while any owner
 * lives and goes exactly when the last one does. The control case, the same scenario with
 * ownership switched off (a test-only switch), loses the shared entry while five scopes still want it.
 */
import { describe, expect, it } from "vitest";
import type { RunResult } from "../../../shared/schemas/run";
import { apply, destroy, type TestApp, testApp } from "../../helpers/app";
import { auth0Client, freshAuth0Domain } from "../../helpers/emulators";
import { receipt } from "../../helpers/engine";
import { APP_CLIENT, auth0Plan, seedTenant } from "../../helpers/plans";

const SCOPES = 8;
const DESTROYED_AT_ONCE = 3;
const SHARED = "http://localhost:3000/callback";
/** Put there by a person before any scope: never removed by anyone. */
const FOREIGN = "https://app.example.com/callback";
const own = (scope: string) => `https://${scope}.preview.example.com/callback`;

async function callbacks(domain: string): Promise<string[]> {
  return (await auth0Client(domain, APP_CLIENT))?.callbacks ?? [];
}

function planFor(domain: string) {
  return auth0Plan(domain, [
    { id: "shared", op: "auth0.callbackUrl", url: SHARED },
    { id: "own", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
  ]);
}

/**
 * Scope 0 applies first (it creates the shared entry); the other seven at once. Each reads the
 * application only under its lease (their lines are not in their ledgers yet), one at a time.
 */
async function applyAll(app: TestApp, domain: string, scopes: string[]): Promise<RunResult[]> {
  const first = await apply(app, "preview", scopes[0] as string, planFor(domain));
  const rest = await Promise.all(
    scopes
      .slice(1)
      .map((s) => apply(app, "preview", s, planFor(domain), { wait: true, waitTimeoutSeconds: 60 })),
  );
  return [first, ...rest];
}

async function world(ownership: boolean) {
  const domain = freshAuth0Domain("own");
  await seedTenant(domain, { callbacks: [FOREIGN] });
  const app = testApp({ engine: { controls: { ownership } } });
  const base = Math.floor(Math.random() * 1e6) * 100 + 1;
  const scopes = Array.from({ length: SCOPES }, (_, i) => `pr-${base + i}`);
  const applied = await applyAll(app, domain, scopes);
  return { domain, app, scopes, applied };
}

const destroyAtOnce = (app: TestApp, scopes: string[]) =>
  Promise.all(scopes.map((s) => destroy(app, "preview", s, { wait: true, waitTimeoutSeconds: 60 })));

describe("a shared entry with eight owners", () => {
  it("survives three concurrent destroys and every destroy but the last owner's, then goes", async () => {
    const { domain, app, scopes, applied } = await world(true);
    expect(applied.map((r) => r.run.status)).toEqual(Array(SCOPES).fill("succeeded"));
    const sharedResults = applied.map((r) => r.lines.find((l) => l.id === "shared")?.result);
    expect(sharedResults).toEqual(["created", ...Array(SCOPES - 1).fill("shared")]);
    expect(
      (await receipt("preview", scopes[1] as string)).ledger.find((e) => e.key === SHARED)?.holding,
    ).toBe("shared");
    expect(new Set(await callbacks(domain))).toEqual(new Set([FOREIGN, SHARED, ...scopes.map(own)]));

    const gone = scopes.slice(0, DESTROYED_AT_ONCE);
    const destroyed = await destroyAtOnce(app, gone);
    expect(destroyed.map((r) => r.run.status)).toEqual(Array(DESTROYED_AT_ONCE).fill("succeeded"));
    for (const result of destroyed)
      expect(result.lines.find((l) => l.key === SHARED)?.result).toBe("released");
    const live = scopes.slice(DESTROYED_AT_ONCE);
    expect(new Set(await callbacks(domain))).toEqual(new Set([FOREIGN, SHARED, ...live.map(own)]));

    for (const [i, scope] of live.entries()) {
      const last = i === live.length - 1;
      const result = await destroy(app, "preview", scope);
      expect(result.lines.find((l) => l.key === SHARED)?.result).toBe(last ? "removed" : "released");
      expect((await callbacks(domain)).includes(SHARED)).toBe(!last);
    }
    expect(await callbacks(domain)).toEqual([FOREIGN]);
  });

  it("control: without ownership the shared entry is lost while five scopes still want it", async () => {
    const { domain, app, scopes, applied } = await world(false);
    expect(applied.map((r) => r.run.status)).toEqual(Array(SCOPES).fill("succeeded"));
    // Only its creator recorded it; everyone else said "unchanged" and owns nothing.
    expect(applied.slice(1).map((r) => r.lines.find((l) => l.id === "shared")?.result)).toEqual(
      Array(SCOPES - 1).fill("unchanged"),
    );
    await destroyAtOnce(app, scopes.slice(0, DESTROYED_AT_ONCE));
    const left = await callbacks(domain);
    expect(left).not.toContain(SHARED);
    // Every live scope's ledger still says nothing about the entry it needs: the loss is silent.
    for (const scope of scopes.slice(DESTROYED_AT_ONCE))
      expect((await receipt("preview", scope)).ledger.map((e) => e.key)).toEqual([own(scope)]);
  });
});
