/**
 * The lost-update race this service prevents (docs/design.md), through the HTTP API: many scopes read one
 * Auth0 application's lists at the same moment (the emulator's read barrier) and write them back. With parent
 * locks no entry is lost; the control case, same scenario without them, loses entries every time.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { R2ReceiptStore } from "../../../workers/receipts/r2-receipt-store";
import { apply, destroy, testApp } from "../../helpers/app";
import { auth0Client, configureHost, freshAuth0Domain } from "../../helpers/emulators";
import { APP_CLIENT, previewPlan, seedTenant } from "../../helpers/plans";
import { scopeAddress } from "../../helpers/repositories";

const APPLYING = 8;
const DESTROYING = 2;
const UNRELATED = "https://app.example.com/callback";

async function listsOf(domain: string) {
  const client = await auth0Client(domain, APP_CLIENT);
  if (!client) throw new Error("application missing");
  return { callbacks: client.callbacks, logout: client.allowed_logout_urls, origins: client.web_origins };
}

/** What the live ledgers of every scope say the application must hold, plus the unrelated entry. */
async function unionOfLedgers(scopes: string[]) {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const want = { callbacks: new Set([UNRELATED]), logout: new Set<string>(), origins: new Set<string>() };
  for (const scope of scopes) {
    const { receipt } = await store.read(scopeAddress("preview", scope));
    for (const entry of receipt.ledger) {
      const list =
        entry.op === "auth0.callbackUrl"
          ? want.callbacks
          : entry.op === "auth0.logoutUrl"
            ? want.logout
            : want.origins;
      list.add(entry.key);
    }
  }
  return want;
}

async function scenario(parentLocks: boolean) {
  const domain = freshAuth0Domain("journey");
  await seedTenant(domain, { callbacks: [UNRELATED] });
  const app = testApp({ engine: { controls: { parentLocks } } });
  const plan = previewPlan(domain);
  const base = Math.floor(Math.random() * 1e6) * 100 + 1;
  const destroying = Array.from({ length: DESTROYING }, (_, i) => `pr-${base + i}`);
  const applying = Array.from({ length: APPLYING }, (_, i) => `pr-${base + DESTROYING + i}`);
  for (const scope of destroying) await apply(app, "preview", scope, plan);

  // Without locks every run reads before any writes (held at the barrier until all have read).
  // With them a run reads the application only under its lease, one at a time (a new scope's
  // lines are not read before it): a barrier would never open, and nothing needs lining up.
  if (!parentLocks) await configureHost(domain, { readBarrier: APPLYING + DESTROYING });
  const runs = await Promise.all([
    ...applying.map((scope) => apply(app, "preview", scope, plan, { wait: true, waitTimeoutSeconds: 60 })),
    ...destroying.map((scope) => destroy(app, "preview", scope, { wait: true, waitTimeoutSeconds: 60 })),
  ]);
  await configureHost(domain, {});
  const have = await listsOf(domain);
  const want = await unionOfLedgers([...applying, ...destroying]);
  const lost = [
    ...[...want.callbacks].filter((u) => !have.callbacks.includes(u)),
    ...[...want.logout].filter((u) => !have.logout.includes(u)),
    ...[...want.origins].filter((u) => !have.origins.includes(u)),
  ];
  return { runs, have, want, lost };
}

describe("parent-object locks: concurrent scopes on one Auth0 application", () => {
  it(`${APPLYING} scopes adding 3 entries each while ${DESTROYING} destroy: the lists equal the union of the live ledgers`, async () => {
    const { runs, have, want, lost } = await scenario(true);
    expect(runs.map((r) => r.run.status)).toEqual(Array(APPLYING + DESTROYING).fill("succeeded"));
    expect(lost).toEqual([]);
    expect(new Set(have.callbacks)).toEqual(want.callbacks);
    expect(new Set(have.logout)).toEqual(want.logout);
    expect(new Set(have.origins)).toEqual(want.origins);
    expect(want.callbacks.size).toBe(APPLYING + 1);
    console.info(`journey with locks: ${APPLYING * 3} entries written, ${lost.length} lost`);
  });

  it("control case: the same scenario without parent locks loses entries", async () => {
    const { runs, lost } = await scenario(false);
    // Every run believes it succeeded: the loss is silent, which is the whole problem.
    expect(runs.every((r) => r.run.status === "succeeded")).toBe(true);
    expect(lost.length).toBeGreaterThan(0);
    console.info(`journey without locks: ${APPLYING * 3} entries written, ${lost.length} lost`);
  });
});
