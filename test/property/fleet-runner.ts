/**
 * Runs one fleet history (./fleet-model.ts) and returns every problem the invariants
 * (./fleet-checks.ts) found, instead of throwing, so the property can require none and a mutation
 * check can require some. After every group: lists, line results and owners. After the history: a
 * recovery pass on every scope a fault was aimed at or whose run did not end well, then the same
 * checks and no intent nor held lock; then every scope is destroyed at once, and the lists must
 * hold the foreign entries alone, with no owner left in any lock object.
 */
import { env } from "cloudflare:workers";
import { RECEIPT_VERSION } from "../../shared/schemas/receipt";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { seedAuth0Tenant } from "../helpers/emulators";
import { staleEtagRefusals } from "../helpers/emulators-apikeys";
import { TEST_M2M } from "../helpers/plans";
import { scopeAddress } from "../helpers/repositories";
import { allEntries, checkEmpty, checkLines, checkLists, checkOwners, checkQuiet } from "./fleet-checks";
import { landDeferredWrites } from "./fleet-faults";
import {
  APIKEY_OP,
  AUTH0_OBJECTS,
  AUTH0_TENANTS,
  type Auth0Op,
  CLERK_OP,
  describeStep,
  FOREIGN,
  type History,
  itemId,
  type LineSpec,
  OBJECTS,
  RACE_LABELS,
  urlOf,
} from "./fleet-model";
import { checkShares, holdingsOf } from "./fleet-quota";
import { engineFor, type RunOutcome, recoverScope, request, runStep } from "./fleet-steps";
import { WantModel } from "./fleet-wants";
import {
  ENVIRONMENT,
  FIELD_OF,
  FIELDS,
  type FleetWorld,
  identityOf,
  outsideItems,
  receiptR2Key,
} from "./fleet-world";

/** SPONSON_PROPERTY_VERBOSE=1: every group as it starts (where a hung history stopped). */
const VERBOSE = Boolean(
  (import.meta as unknown as { env?: Record<string, string> }).env?.SPONSON_PROPERTY_VERBOSE,
);
function log(message: string): void {
  if (VERBOSE) console.info(`fleet: ${message}`);
}

export interface FleetTally {
  histories: number;
  steps: number;
  concurrent: number;
  crashes: number;
  faults: number;
  failed: number;
  shared: number;
  released: number;
  /** Redirect URLs another writer created right before a run's POST of them (`outside-create`). */
  outsideCreates: number;
  /** Referrers another writer added to the API key right before a run's PATCH (`outside-update`). */
  outsideUpdates: number;
  /** PATCHes of the API key refused 409 for a stale etag (each read and decided again). */
  staleEtags: number;
  /** Writes answered as lost that landed late, and how many of those only after the next group. */
  lateLandings: number;
  lateAfterNextGroup: number;
  /** Lists an eviction made room in (notes in the evicted scopes' receipts; eviction worlds only). */
  evictions: number;
  /** Runs refused QUOTA_EXCEEDED: from the plan, and under the lease (quota worlds only). */
  quotaRefused: { plan: number; lease: number };
}

export function emptyTally(): FleetTally {
  return {
    histories: 0,
    steps: 0,
    concurrent: 0,
    crashes: 0,
    faults: 0,
    failed: 0,
    shared: 0,
    released: 0,
    outsideCreates: 0,
    outsideUpdates: 0,
    staleEtags: 0,
    lateLandings: 0,
    lateAfterNextGroup: 0,
    evictions: 0,
    quotaRefused: { plan: 0, lease: 0 },
  };
}

/**
 * Lines that must be new in their group get the group's number in their URL: the holder's own
 * line of a combining step (so no earlier step created it already), and the lines an
 * `outside-create` apply adds (so its run posts them).
 */
function uniqueGroupLines(history: History): History {
  const fresh = (labels: readonly string[], n: number) => (l: LineSpec) =>
    labels.includes(l.label) ? { ...l, url: `${l.url}-${n}` } : l;
  return {
    ...history,
    groups: history.groups.map((g, n) => ({
      steps: g.steps.map((s) =>
        s.action === "combine-timeout"
          ? { ...s, lines: s.lines.map(fresh(["z"], n)), waiterLines: s.waiterLines.map(fresh(["z"], n)) }
          : s.action === "apply"
            ? { ...s, lines: s.lines.map(fresh(RACE_LABELS, n)) }
            : s,
      ),
    })),
  };
}

/**
 * A receipt of the previous version, written straight into R2 (no metadata, no repository, ledger
 * entries without `holding`), with create intents of a run that crashed after its write: the
 * entries its ledger and intents name are on the provider, and no lock object knows them yet.
 */
async function plantOldReceipt(
  world: FleetWorld,
  old: NonNullable<History["old"]>,
  model: WantModel,
): Promise<void> {
  const scope = world.scopeName(old.scope);
  // Auth0 entries only: the old version's receipts predate Clerk and API keys.
  const ledger = old.lines.filter(
    (l) => !l.url.includes("app.example.com") && (OBJECTS[l.object]?.tenant ?? 0) < AUTH0_TENANTS,
  );
  const intents: LineSpec[] = Array.from({ length: old.created }, (_, i) => ({
    label: `old-${i}`,
    op: "auth0.callbackUrl" as const,
    url: `https://{scope}.preview.example.com/old/${i}`,
    object: i % AUTH0_OBJECTS,
    connection: 0,
  })).map((l) => ({ ...l, connection: OBJECTS[l.object]?.tenant === 1 ? 2 : 0 }));
  const record = (l: LineSpec) => ({
    line: l.label,
    op: l.op,
    connection: world.connections[l.connection] as string,
    params: { client: OBJECTS[l.object]?.client as string, url: urlOf(l, scope) },
    key: urlOf(l, scope),
    parent: identityOf(world, l.object),
    runId: "run-previous-version",
  });
  const receipt = {
    version: RECEIPT_VERSION,
    environment: ENVIRONMENT,
    scope,
    revision: 3,
    ledger: ledger.map((l) => ({ ...record(l), createdAt: 1 })),
    intents: intents.map((l) => ({ action: "create", ...record(l), at: 2 })),
    runs: [],
  };
  await env.RECEIPTS.put(receiptR2Key(world, old.scope), JSON.stringify(receipt));
  // The provider holds what the receipt names (the old run wrote its intents' items before it died).
  for (const [tenant, domain] of world.domains.slice(0, AUTH0_TENANTS).entries()) {
    const clients: Record<string, Record<string, string[]>> = {};
    for (const [object, o] of OBJECTS.entries()) {
      if (o.tenant !== tenant) continue;
      const lists = Object.fromEntries(FIELDS.map((f) => [f, [...FOREIGN[f]]]));
      for (const l of [...ledger, ...intents])
        if (l.object === object) {
          const list = lists[FIELD_OF[l.op as Auth0Op]] as string[];
          const url = urlOf(l, scope);
          if (!list.includes(url)) list.push(url);
        }
      clients[o.client] = lists;
    }
    await seedAuth0Tenant(domain, { m2m: TEST_M2M, clients });
  }
  model.planted(
    old.scope,
    ledger.map((l) => itemId(l, scope)),
    intents.map((l) => itemId(l, scope)),
  );
}

function takeOutcome(world: FleetWorld, model: WantModel, o: RunOutcome): void {
  // A share refused from the plan (a problem answer) wrote nothing: the scope wants what it did.
  if (o.thrown?.code === "QUOTA_EXCEEDED") return;
  const name = world.scopeName(o.scope);
  const plan = (o.plan ?? []).map((l) => itemId(l, name));
  if (o.result?.run.status === "succeeded") {
    if (o.plan) model.applied(o.scope, plan);
    else model.destroyed(o.scope);
  } else {
    model.doubted(o.scope, plan);
  }
}

/** How many eviction notes the scopes' receipts hold (what the tally reports, never a check). */
async function evictionsNoted(world: FleetWorld, scopes: readonly number[]): Promise<number> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const receipts = await Promise.all(
    scopes.map((i) => store.read(scopeAddress(ENVIRONMENT, world.scopeName(i)))),
  );
  return receipts.reduce((n, { receipt }) => n + (receipt.evictions?.length ?? 0), 0);
}

export async function runFleetHistory(world: FleetWorld, raw: History, tally: FleetTally): Promise<string[]> {
  const history = uniqueGroupLines(raw);
  const model = new WantModel();
  const staleBefore = await staleEtagRefusals();
  const problems: string[] = [];
  const name = (i: number) => world.scopeName(i);
  const scopes = new Set<number>();
  const unsettled = new Set<number>();
  if (history.old) {
    await plantOldReceipt(world, history.old, model);
    scopes.add(history.old.scope);
    unsettled.add(history.old.scope);
  }
  for (const [g, group] of history.groups.entries()) {
    log(`group ${g + 1}: ${group.steps.map((s) => describeStep(s, name)).join(" || ")}`);
    tally.steps += group.steps.length;
    if (group.steps.length > 1) tally.concurrent += 1;
    // A late write nothing kept this group from lands after its writes.
    const due = new Set(world.late.deferred);
    world.late.deferred.clear();
    const outcomes = (await Promise.all(group.steps.map((s) => runStep(world, s)))).flat();
    await landDeferredWrites(world, due);
    // Days passed: every scope may be stale now, and its entries on a capped list evicted by a later
    // write, until its next successful apply (./fleet-wants.ts).
    if (world.evicting && group.steps.some((s) => s.action === "idle")) model.wentIdle();
    const have = await allEntries(world);
    // What every scope may have held before the group: what a share may keep (./fleet-quota.ts).
    const before = world.quota ? holdingsOf(model) : null;
    for (const o of outcomes) {
      scopes.add(o.scope);
      const step = group.steps.find((s) => "scope" in s && s.scope === o.scope) ?? group.steps[0];
      const where = `group ${g + 1}: ${step ? describeStep(step, name) : ""} (${name(o.scope)})`;
      log(
        `  ${name(o.scope)}: ${o.result?.run.status ?? (o.crashed ? "crashed" : "threw")} ${o.result?.run.error?.code ?? ""}`,
      );
      if (o.crashed) tally.crashes += 1;
      if (o.faultFired) tally.faults += 1;
      if (o.thrown) {
        // A problem answer is a refusal: true only when nothing was written (never INTERNAL).
        if (o.thrown.code === "INTERNAL" || o.thrown.code === "UNEXPECTED")
          problems.push(`${where}: threw ${o.thrown.code}: ${o.thrown.message}`);
      }
      if (o.result && o.result.run.status !== "succeeded") tally.failed += 1;
      if (o.thrown?.code === "QUOTA_EXCEEDED") tally.quotaRefused.plan += 1;
      if (o.result?.run.error?.code === "QUOTA_EXCEEDED") tally.quotaRefused.lease += 1;
      for (const line of o.result?.lines ?? []) {
        if (line.result === "shared") tally.shared += 1;
        if (line.result === "released") tally.released += 1;
      }
      if (o.crashed || o.faultFired || o.result?.run.status !== "succeeded") unsettled.add(o.scope);
      else unsettled.delete(o.scope);
      problems.push(...checkLines(world, o, have, where));
      takeOutcome(world, model, o);
    }
    if (before) problems.push(...checkShares(world, { before, model, outcomes }, `group ${g + 1}`));
    for (const i of model.scopes())
      log(`  ${name(i)} wants [${model.wanted(i).join(", ")}], in doubt [${model.doubtful(i).join(", ")}]`);
    problems.push(...(await checkLists(world, model, `after group ${g + 1}`)));
    problems.push(...(await checkOwners(world, [...scopes], `after group ${g + 1}`)));
  }

  // One deferred after the last group lands before the recovery pass.
  await landDeferredWrites(world, world.late.deferred);
  world.late.deferred.clear();
  log("recovery");
  const recovered = await Promise.all([...unsettled].sort().map((i) => recoverScope(world, i)));
  for (const r of recovered)
    if (r.run.status !== "succeeded")
      problems.push(`recovery of ${r.run.scope}: ${JSON.stringify(r.run.error)}`);
  const all = [...scopes].sort();
  problems.push(...(await checkQuiet(world, all, "after recovery")));
  problems.push(...(await checkLists(world, model, "after recovery")));
  problems.push(...(await checkOwners(world, all, "after recovery")));

  if (world.evicting) tally.evictions += await evictionsNoted(world, all);

  log("final destroy");
  const engine = engineFor(world);
  const destroyed = await Promise.all(
    all.map((i) =>
      engine.destroy(request(world, i)).catch((err: unknown) => ({ thrown: String(err), scope: i })),
    ),
  );
  for (const d of destroyed) {
    if ("thrown" in d) problems.push(`final destroy of ${name(d.scope)} threw ${d.thrown}`);
    else if (d.run.status !== "succeeded")
      problems.push(`final destroy of ${d.run.scope}: ${JSON.stringify(d.run.error)}`);
  }
  problems.push(...(await checkEmpty(world)));
  const outside = await outsideItems(world);
  tally.outsideCreates += outside.filter((id) => id.startsWith(`${CLERK_OP} `)).length;
  tally.outsideUpdates += outside.filter((id) => id.startsWith(`${APIKEY_OP} `)).length;
  tally.staleEtags += (await staleEtagRefusals()) - staleBefore;
  problems.push(...(await checkQuiet(world, all, "after destroying every scope")));
  tally.histories += 1;
  tally.lateLandings += world.late.landed;
  tally.lateAfterNextGroup += world.late.deferredLanded;
  for (const p of problems) log(`problem: ${p}`);
  return problems;
}
