/**
 * The reliability suite's harness: an engine wired like production (real lock objects, R2, the
 * emulators) but with a clock the test drives and an optional wrapper around provider HTTP, and
 * the one check every fault ends with — after recovery nothing is lost, nothing is orphaned and
 * no lock is held.
 */
import { env } from "cloudflare:workers";
import type { ExpectStatic } from "vitest";
import type { Plan } from "../../shared/schemas/plan";
import type { Engine } from "../../workers/engine/engine";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import type { EngineOverrides } from "../../workers/wiring/wire";
import { StepClock } from "../helpers/clock";
import { auth0Client, freshAuth0Domain } from "../helpers/emulators";
import { durableIntents, expectLocksFree, freshPr, receipt } from "../helpers/engine";
import { APP_CLIENT, previewPlan, seedTenant } from "../helpers/plans";
import { scopeAddress } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";

// The reliability tests take their clock from here: sleeps pass at once, a jump models a stall.
export { StepClock };

export type EngineKnobs = Pick<EngineOverrides, "clock" | "faults" | "wrapFetch" | "wrapLocks">;

/** The engine exactly as production wires it (createEngine), with the test's clock, faults and transport. */
export function reliabilityEngine(knobs: EngineKnobs = {}): Engine {
  return testEngine({ clock: new StepClock(), ...knobs });
}

/** A fresh tenant with one application holding an entry no scope owns, a fresh scope, its plan. */
export async function freshWorld(): Promise<{ domain: string; scope: string; plan: Plan }> {
  const domain = freshAuth0Domain("rel");
  await seedTenant(domain, { callbacks: [UNOWNED] });
  return { domain, scope: freshPr(), plan: previewPlan(domain) };
}

export const UNOWNED = "https://app.example.com/callback";

/** The three lists the preview plan writes, as the emulated application holds them now. */
export async function providerItems(domain: string): Promise<string[]> {
  const app = await auth0Client(domain, APP_CLIENT);
  if (!app) throw new Error(`application ${APP_CLIENT} missing on ${domain}`);
  return [
    ...app.callbacks.map((u) => `callbacks ${u}`),
    ...app.allowed_logout_urls.map((u) => `logout ${u}`),
    ...app.web_origins.map((u) => `origins ${u}`),
  ].sort();
}

const LIST_OF_OP: Record<string, string> = {
  "auth0.callbackUrl": "callbacks",
  "auth0.logoutUrl": "logout",
  "auth0.webOrigin": "origins",
};

/**
 * After recovery: the provider holds exactly the unowned entry plus what the scopes' ledgers own
 * (nothing lost, nothing orphaned), no receipt keeps an intent, and no lock is held or waited on.
 */
export async function expectSettled(expect: ExpectStatic, domain: string, scopes: string[]): Promise<void> {
  const owned = [`callbacks ${UNOWNED}`];
  for (const scope of scopes) {
    const r = await receipt("preview", scope);
    expect(await durableIntents("preview", scope), `intents left in ${scope}`).toEqual([]);
    for (const e of r.ledger) owned.push(`${LIST_OF_OP[e.op]} ${e.key}`);
  }
  expect(await providerItems(domain)).toEqual(owned.sort());
  await expectLocksFree(expect, domain, scopes);
}

/** The three entries the preview plan gives `scope`, in providerItems' form. */
export function entriesOf(scope: string): string[] {
  const host = `https://${scope}.preview.example.com`;
  return [`callbacks ${host}/callback`, `logout ${host}/`, `origins ${host}`];
}

/**
 * Replaces the scope's receipt behind the run's back, as another writer would (docs/design.md, "Storage").
 */
export async function intrude(scope: string, marker: string): Promise<void> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const { receipt: current, etag } = await store.read(scopeAddress("preview", scope));
  await store.write({ ...current, revision: current.revision + 1, intruder: marker }, etag);
}
