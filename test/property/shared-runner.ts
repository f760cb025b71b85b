/**
 * Runs one shared-entry history (./shared-model.ts) against the real engine on one provider's
 * shared object and returns the verdict instead of throwing, so the property can require a clean
 * one and the control cases can require the loss. One engine per step, each with its own fault
 * hook; retry backoff sleeps return at once; everything else is real (lease objects, R2, emulators).
 *
 * After the history every scope a crash was aimed at gets a recovery pass (engine.recover); the
 * others get none, so they must be clean on their own. Then, each read from its own authority:
 *   - the object's list against the model: the foreign entries plus every entry a live scope wants
 *     (`lost`: wanted or foreign but gone; `orphans`: there but wanted by no one, or doubled);
 *   - no receipt holds an intent; every lock the history touched is free;
 *   - (`strict`) each scope's ledger holds exactly what the model says it wants, the parent lock's
 *     owners of each entry are exactly the scopes that want it, and only foreign entries are
 *     marked foreign.
 * `strict` also checks every step's answer against the model (see `checkStep`).
 */
import { env } from "cloudflare:workers";
import { type Clock, systemClock } from "../../shared/clock";
import { SponsonError } from "../../shared/errors";
import { parentLockKey, scopeLockKey } from "../../shared/lock-keys";
import type { ItemOwnership } from "../../shared/schemas/ownership";
import type { LineResult, RunResult } from "../../shared/schemas/run";
import { SecretRegistry } from "../../shared/secrets";
import type { EngineControls } from "../../workers/engine/controls";
import type { FaultHook } from "../../workers/engine/deps";
import { ownerOf } from "../../workers/engine/rules/ownership";
import { SimulatedCrash } from "../../workers/engine/simulated-crash";
import { lockStub, readLock } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { durableIntents } from "../helpers/engine";
import { DEFAULT_REPOSITORY, scopeAddress } from "../helpers/repositories";
import { testEngine } from "../helpers/test-engine";
import {
  type CrashReport,
  describeStep,
  FOREIGN_HOSTS,
  type History,
  hostOf,
  type ItemId,
  type ItemKind,
  itemOf,
  type Step,
  WantModel,
} from "./shared-model";
import type { SharedObject } from "./shared-worlds";

const ENVIRONMENT = "preview";
/** Concurrent steps wait for each other's parent lock; generous, a wait should never take long. */
const WAIT_TIMEOUT_MS = 30_000;
const instantBackoffClock: Clock = { ...systemClock, sleep: async () => {} };

/** The engine's controls the runner sets (controls.ts): both on in the property, one off in a control case. */
export type SharedControls = Pick<EngineControls, "ownership" | "parentLocks">;

export interface SharedWorld {
  object: SharedObject;
  scopeName(index: number): string;
  controls: SharedControls;
  /** Check every step's answer and the ledgers and owners, not only the object's list. */
  strict: boolean;
}

export interface Tally {
  steps: number;
  concurrent: number;
  crashes: number;
  /** Lines that joined other owners (`shared`) or let go of an entry others keep (`released`). */
  shared: number;
  released: number;
}

export interface Verdict {
  /** Step answers that disagree with the model (strict only). */
  steps: string[];
  /** Entries the object should hold: the foreign ones and every live scope's wanted ones. */
  want: string[];
  have: string[];
  lost: string[];
  orphans: string[];
  intents: string[];
  locks: string[];
  /** Ledgers and owner lists that disagree with the model (strict only). */
  records: string[];
}

export function verdictProblems(v: Verdict): string[] {
  return [
    ...v.steps,
    ...v.lost.map((e) => `lost ${e}`),
    ...v.orphans.map((e) => `orphan ${e}`),
    ...v.intents.map((i) => `intent left: ${i}`),
    ...v.locks.map((l) => `lock still held: ${l}`),
    ...v.records,
  ];
}

interface StepOutcome {
  step: Step;
  result?: RunResult;
  /** Refused before any run started (a rollback with nothing to roll back: NOT_FOUND). */
  refused?: string;
  /** Present when the run died at its fault point. */
  crash?: CrashReport;
  /** Every line the run reported, as it happened (a crashed run reports no result). */
  lines: LineResult[];
}

function engineFor(world: SharedWorld, faults?: FaultHook) {
  return testEngine({
    bindings: world.object.secrets,
    clock: instantBackoffClock,
    ...(faults ? { faults } : {}),
    controls: world.controls,
  });
}

function request(world: SharedWorld, scope: number) {
  return {
    repository: DEFAULT_REPOSITORY,
    environment: ENVIRONMENT,
    scope: world.scopeName(scope),
    wait: true,
    waitTimeoutMs: WAIT_TIMEOUT_MS,
  };
}

async function runStep(world: SharedWorld, step: Step): Promise<StepOutcome> {
  const fault = step.fault;
  let seen = 0;
  let at: CrashReport["at"] | undefined;
  const faults: FaultHook = (point, detail) => {
    if (fault.kind !== "crash" || point !== fault.point) return;
    seen += 1;
    if (seen !== fault.nth) return;
    at = { line: detail.line, action: detail.action, group: detail.group };
    throw new SimulatedCrash(point);
  };
  const lines: LineResult[] = [];
  const emit = (event: { type: string; line?: LineResult }) => {
    if (event.type === "line" && event.line) lines.push(event.line);
  };
  const engine = engineFor(world, faults);
  const req = request(world, step.scope);
  try {
    const result =
      step.action === "apply"
        ? await engine.apply(
            {
              ...req,
              plan: world.object.plan(step.items.map((id) => ({ id, host: itemOf(id).host }))),
              allowEmpty: true,
            },
            emit,
          )
        : step.action === "destroy"
          ? await engine.destroy(req, emit)
          : await engine.rollback(req, emit);
    return { step, result, lines };
  } catch (err) {
    if (err instanceof SimulatedCrash && at) return { step, crash: { lines, at }, lines };
    if (step.action === "rollback" && err instanceof SponsonError && err.code === "NOT_FOUND") {
      return { step, refused: err.code, lines };
    }
    throw err;
  }
}

/** Results a line may have for an item the scope did not want before (joins) or wants no more. */
const BROUGHT: Record<ItemKind, { alone: string; others: string }> = {
  own: { alone: "created", others: "created" },
  shared: { alone: "created", others: "shared" },
  foreign: { alone: "foreign", others: "shared" },
};
const LET_GO: Record<ItemKind, { alone: string; others: string }> = {
  own: { alone: "removed", others: "removed" },
  shared: { alone: "removed", others: "released" },
  foreign: { alone: "released", others: "released" },
};

/**
 * A step's answer against the model, read before the model takes the step in. Alone in its group,
 * a step knows whether other scopes want an entry (so `shared` vs `created`, `released` vs
 * `removed` is exact); next to other steps only the set of allowed results is.
 */
function checkStep(model: WantModel, outcome: StepOutcome, alone: boolean, name: (i: number) => string) {
  const { step } = outcome;
  const where = describeStep(step, name);
  const problems: string[] = [];
  if (step.fault.kind === "crash" && outcome.crash) return problems;
  const before = new Set(model.wanted(step.scope));
  const target = model.rollbackTarget(step.scope);
  if (outcome.refused) {
    if (step.action !== "rollback" || target)
      problems.push(`${where}: refused (${outcome.refused}) with an apply to roll back`);
    return problems;
  }
  const result = outcome.result;
  if (!result) return [`${where}: no result`];
  if (result.run.status !== "succeeded")
    return [`${where}: ${result.run.status} ${JSON.stringify(result.run.error ?? null)}`];
  // A rollback with nothing to roll back succeeds having done nothing: with `noReceipt` on a scope
  // nothing was applied to, without it where a crashed run's recovery saved a receipt. Either way
  // its lines are none (below: nothing is expected).

  const expected = new Map<string, string[]>();
  const allowed = (id: ItemId, table: typeof BROUGHT) => {
    const kind = itemOf(id).kind;
    const others = model.wanters(id).some((i) => i !== step.scope);
    const row = table[kind];
    const exact = alone && !model.pendingElsewhere(step.scope, id);
    return exact ? [others ? row.others : row.alone] : [...new Set([row.alone, row.others])];
  };
  if (step.action === "apply") {
    for (const id of step.items) expected.set(id, before.has(id) ? ["unchanged"] : allowed(id, BROUGHT));
    for (const id of before) if (!step.items.includes(id)) expected.set(id, allowed(id, LET_GO));
  } else if (step.action === "destroy") {
    for (const id of before) expected.set(id, allowed(id, LET_GO));
  } else if (target) {
    for (const id of model.rollbackItems(step.scope)) expected.set(id, allowed(id, LET_GO));
  }
  const got = result.lines.map((l) => `${l.id}=${l.result}`).sort();
  const ok =
    result.lines.length === expected.size &&
    result.lines.every((l) => expected.get(l.id)?.includes(l.result) ?? false);
  if (!ok) {
    const want = [...expected].map(([id, r]) => `${id}=${r.join("|")}`).sort();
    problems.push(`${where}: lines ${got.join(" ")}; the model expects ${want.join(" ")}`);
  }
  return problems;
}

function takeStep(model: WantModel, outcome: StepOutcome): void {
  const { step } = outcome;
  if (outcome.refused) return;
  if (outcome.crash) {
    // A run that died may have died recovering what an earlier crash left: that stays pending too.
    model.crashed(step.scope, outcome.crash);
    return;
  }
  model.ran(step.scope);
  if (outcome.result?.run.status !== "succeeded") return;
  if (step.action === "apply") model.applied(step.scope, step.items);
  else if (step.action === "destroy") model.destroyed(step.scope);
  else model.rolledBack(step.scope);
}

const sorted = (l: readonly string[]) => [...l].sort();

/**
 * Every owned or foreign item the parent lock keeps. Read as either shape the lock answers: the
 * rows alone, or the rows with what else the lock keeps next to them (`{ items, … }`).
 */
async function ownershipRows(key: string): Promise<ItemOwnership[]> {
  const view: unknown = await lockStub(env, key).ownership({ key });
  return Array.isArray(view) ? (view as ItemOwnership[]) : (view as { items: ItemOwnership[] }).items;
}

/** Runs `history` on `world` and judges the end state against the model. */
export async function runSharedHistory(world: SharedWorld, history: History, tally: Tally): Promise<Verdict> {
  const model = new WantModel();
  const name = (i: number) => world.scopeName(i);
  const stepProblems: string[] = [];
  const parents = new Set<string>();
  for (const group of history.groups) {
    tally.steps += group.length;
    if (group.length > 1) tally.concurrent += 1;
    const outcomes = await Promise.all(group.map((step) => runStep(world, step)));
    for (const outcome of outcomes) {
      if (outcome.crash) tally.crashes += 1;
      for (const line of outcome.lines) {
        if (line.parent) parents.add(line.parent);
        if (line.result === "shared") tally.shared += 1;
        if (line.result === "released") tally.released += 1;
      }
      if (world.strict) stepProblems.push(...checkStep(model, outcome, group.length === 1, name));
    }
    for (const outcome of outcomes) takeStep(model, outcome);
  }

  const scopes = [...new Set(history.groups.flat().map((s) => s.scope))].sort();
  const crashed = scopes.filter((i) =>
    history.groups.some((g) => g.some((s) => s.scope === i && s.fault.kind !== "none")),
  );
  const engine = engineFor(world);
  const recovered = await Promise.all(crashed.map((i) => engine.recover(request(world, i))));
  for (const r of recovered)
    if (r.run.status !== "succeeded")
      stepProblems.push(`recovery of ${r.run.scope}: ${JSON.stringify(r.run.error)}`);

  // What the object must hold: the foreign entries and every entry a live scope wants.
  const wantedBy = new Map<string, string[]>();
  for (const i of model.scopes()) {
    for (const id of model.wanted(i)) {
      const entry = world.object.entry(hostOf(id, name(i)));
      wantedBy.set(entry, [...(wantedBy.get(entry) ?? []), ownerOf(scopeAddress(ENVIRONMENT, name(i)))]);
    }
  }
  const foreign = FOREIGN_HOSTS.map((h) => world.object.entry(h));
  const want = sorted([...new Set([...foreign, ...wantedBy.keys()])]);
  const have = sorted(await world.object.entries());
  const lost = want.filter((e) => !have.includes(e));
  const orphans = have.filter((e, n) => !want.includes(e) || have.indexOf(e) !== n);

  const store = new R2ReceiptStore(env.RECEIPTS);
  const receipts = await Promise.all(
    scopes.map(async (i) => (await store.read(scopeAddress(ENVIRONMENT, name(i)))).receipt),
  );
  // Wherever they are durable: the receipt, or the scope lock of a run that died before its save.
  const durable = await Promise.all(receipts.map((r) => durableIntents(ENVIRONMENT, r.scope)));
  const intents = receipts.flatMap((r, n) =>
    (durable[n] ?? []).map((i) => `${r.scope}: ${i.action} ${i.key}`),
  );
  const lockKeys = scopes.map((i) => scopeLockKey(DEFAULT_REPOSITORY.id, ENVIRONMENT, name(i)));
  const parentKeys = await Promise.all([...parents].map((p) => parentLockKey(p, new SecretRegistry())));
  const locks = (await Promise.all([...lockKeys, ...parentKeys].map((key) => readLock(env, key))))
    .filter((l) => l.held || l.waiters.length > 0)
    .map((l) => `${l.key} held by ${l.holder}`);

  const records: string[] = [];
  if (world.strict) {
    for (const [n, receipt] of receipts.entries()) {
      const i = scopes[n] as number;
      const ledger = sorted(receipt.ledger.map((e) => e.key));
      const modelled = sorted(model.wanted(i).map((id) => world.object.entry(hostOf(id, name(i)))));
      if (ledger.join() !== modelled.join())
        records.push(`ledger of ${name(i)} holds [${ledger}], the model wants [${modelled}]`);
    }
    for (const key of parentKeys) {
      const items = await ownershipRows(key);
      const owned = new Map(items.filter((o) => o.owners.length > 0).map((o) => [o.key, sorted(o.owners)]));
      for (const entry of new Set([...owned.keys(), ...wantedBy.keys()])) {
        const a = (owned.get(entry) ?? []).join();
        const b = sorted(wantedBy.get(entry) ?? []).join();
        if (a !== b) records.push(`owners of ${entry}: [${a}], the model's wanters: [${b}]`);
      }
      for (const o of items)
        if (o.foreign && !foreign.includes(o.key))
          records.push(`${o.key} is marked foreign but a scope put it there`);
    }
  }
  return { steps: stepProblems, want, have, lost, orphans, intents, locks, records };
}
