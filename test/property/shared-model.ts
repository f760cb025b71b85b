/**
 * The shared-entry property's histories and its model (./shared-histories.test.ts). Several scopes
 * apply plans drawn from the same few entries on one shared object: entries every scope may want
 * (`shared-*`), an entry that was there before any scope (`foreign-a`), and entries of the scope's
 * own (`own-*`, naming the scope). Steps are applies, destroys and rollbacks, alone or up to three
 * at once on different scopes, some crashing after an intent or after a provider write.
 *
 * The model says which entries each scope wants, from the history alone: a scope wants what its
 * last apply asked for until a destroy, or a rollback of the apply that brought it, takes it away.
 * It never reads a ledger or an owner list, so an engine that forgets an owner is caught when the
 * provider no longer holds what a live scope wants. What a crashed run finished is taken from the
 * lines it reported before it died and the fault hook's report of where it died.
 */
import fc from "fast-check";
import type { FaultPoint } from "../../workers/engine/deps";

export const ITEMS = [
  { id: "shared-a", kind: "shared", host: "shared-a.example.com" },
  { id: "shared-b", kind: "shared", host: "shared-b.example.com" },
  { id: "foreign-a", kind: "foreign", host: "foreign-a.example.com" },
  { id: "own-a", kind: "own", host: "own-a.{scope}.preview.example.com" },
  { id: "own-b", kind: "own", host: "own-b.{scope}.preview.example.com" },
] as const;
export type ItemId = (typeof ITEMS)[number]["id"];
export type ItemKind = (typeof ITEMS)[number]["kind"];

/** On the object before any scope: `foreign-a` is also in plans, `foreign-b` in none. */
export const FOREIGN_HOSTS = ["foreign-a.example.com", "foreign-b.example.com"] as const;

export const MAX_SCOPES = 4;

export function itemOf(id: string): (typeof ITEMS)[number] {
  const item = ITEMS.find((i) => i.id === id);
  if (!item) throw new Error(`no item ${id}`);
  return item;
}

/** The host an item names for one scope. */
export function hostOf(id: string, scope: string): string {
  return itemOf(id).host.replace("{scope}", scope);
}

export type Fault = { kind: "none" } | { kind: "crash"; point: FaultPoint; nth: number };

export type Step =
  | { action: "apply"; scope: number; items: ItemId[]; fault: Fault }
  | { action: "destroy" | "rollback"; scope: number; fault: Fault };

/** Steps started together (Promise.all), each on its own scope. */
export type Group = Step[];

export interface History {
  groups: Group[];
}

const NONE: Fault = { kind: "none" };
const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  { arbitrary: fc.constant(NONE), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant("crash" as const),
      // With write combining a crash can hit a holder before or after the write that carries queued
      // changes, or a waiter once it was told its changes were written.
      point: fc.constantFrom<FaultPoint>("after-intent", "after-write", "after-answer"),
      nth: fc.integer({ min: 1, max: 2 }),
    }),
    weight: 2,
  },
);
const itemsArb = fc.subarray(ITEMS.map((i) => i.id as ItemId));

function stepArb(scope: number): fc.Arbitrary<Step> {
  return fc.oneof(
    {
      arbitrary: fc.record({ items: itemsArb, fault: faultArb }).map(({ items, fault }) => ({
        action: "apply" as const,
        scope,
        items,
        fault,
      })),
      weight: 5,
    },
    { arbitrary: faultArb.map((fault) => ({ action: "destroy" as const, scope, fault })), weight: 2 },
    { arbitrary: faultArb.map((fault) => ({ action: "rollback" as const, scope, fault })), weight: 1 },
  );
}

const groupArb: fc.Arbitrary<Group> = fc
  .uniqueArray(fc.nat({ max: MAX_SCOPES - 1 }), { minLength: 1, maxLength: 3 })
  .chain((scopes) => fc.tuple(...scopes.map(stepArb)));

export const historyArb: fc.Arbitrary<History> = fc
  .array(groupArb, { minLength: 2, maxLength: 6 })
  .map((groups) => ({ groups }));

/** One line per step for failure reports: "apply pr-1 [shared-a,own-a] crash after-write #2". */
export function describeStep(step: Step, scopeName: (i: number) => string): string {
  const what =
    step.action === "apply"
      ? `apply ${scopeName(step.scope)} [${step.items.join(",")}]`
      : `${step.action} ${scopeName(step.scope)}`;
  const f = step.fault;
  return f.kind === "none" ? what : `${what} crash ${f.point} #${f.nth}`;
}

/** A recorded apply: what it brought to the scope (what a rollback of it takes away). */
interface ApplyRecord {
  tag: number;
  brought: ItemId[];
}

interface ScopeModel {
  /** Wanted items and the apply that brought each (an item kept by a later apply keeps its tag). */
  wanted: Map<ItemId, number>;
  /** Applies the receipt records, oldest first (a crashed run records none; a destroy clears them). */
  applies: ApplyRecord[];
  /**
   * The items a crashed run died writing (its group on one object), until the scope's next run
   * recovers them: the scope may still be among their owners meanwhile, so another scope may join
   * one as `shared`.
   */
  pending: ItemId[];
}

/** A line a crashed run reported before it died, and where the fault hook stopped it. */
export interface CrashReport {
  lines: ReadonlyArray<{ id: string; result: string }>;
  /** The item the hook stopped at, and its group: every item with an intent when it died. */
  at: { line: string; action: string; group: ReadonlyArray<{ line: string; action: string }> };
}

const KEPT = new Set(["created", "shared", "foreign", "unchanged"]);
const LET_GO = new Set(["removed", "released"]);

export class WantModel {
  readonly #scopes = new Map<number, ScopeModel>();
  #tags = 0;

  #scope(i: number): ScopeModel {
    let s = this.#scopes.get(i);
    if (!s) {
      s = { wanted: new Map(), applies: [], pending: [] };
      this.#scopes.set(i, s);
    }
    return s;
  }

  wanted(i: number): ItemId[] {
    return [...this.#scope(i).wanted.keys()];
  }

  /** The apply a rollback of scope `i` undoes: the last recorded one that brought something. */
  rollbackTarget(i: number): ApplyRecord | undefined {
    return [...this.#scope(i).applies].reverse().find((a) => a.brought.length > 0);
  }

  /** Scope `i` ran to its end (not refused, not crashed): its first act was to recover what a crash left. */
  ran(i: number): void {
    this.#scope(i).pending = [];
  }

  /** Whether another scope's unrecovered crash may still hold `id`. */
  pendingElsewhere(i: number, id: ItemId): boolean {
    return [...this.#scopes].some(([j, s]) => j !== i && s.pending.includes(id));
  }

  applied(i: number, items: readonly ItemId[]): void {
    const s = this.#scope(i);
    const tag = ++this.#tags;
    const brought = items.filter((id) => !s.wanted.has(id));
    for (const id of brought) s.wanted.set(id, tag);
    for (const id of [...s.wanted.keys()]) if (!items.includes(id)) s.wanted.delete(id);
    s.applies.push({ tag, brought });
  }

  destroyed(i: number): void {
    // Everything released, so the receipt is deleted with its run history.
    this.#scopes.set(i, { wanted: new Map(), applies: [], pending: [] });
  }

  /** What a rollback of scope `i` takes away: the wanted items the target apply brought. */
  rollbackItems(i: number): ItemId[] {
    const target = this.rollbackTarget(i);
    return [...this.#scope(i).wanted].filter(([, tag]) => tag === target?.tag).map(([id]) => id);
  }

  rolledBack(i: number): void {
    const s = this.#scope(i);
    for (const id of this.rollbackItems(i)) s.wanted.delete(id);
  }

  /**
   * A run that died: the lines it finished stand (an entry kept or added stays wanted, one let go
   * is gone), every item of the group it died writing is resolved by recovery from its intent (a
   * removal completes; a creation is undone, so the scope does not want it), and the receipt
   * records no run.
   */
  crashed(i: number, report: CrashReport): void {
    const s = this.#scope(i);
    const tag = ++this.#tags;
    for (const line of report.lines) {
      const id = line.id as ItemId;
      if (KEPT.has(line.result) && !s.wanted.has(id)) s.wanted.set(id, tag);
      if (LET_GO.has(line.result)) s.wanted.delete(id);
    }
    for (const item of report.at.group) if (item.action === "remove") s.wanted.delete(item.line as ItemId);
    s.pending = [...new Set([...s.pending, ...report.at.group.map((item) => item.line as ItemId)])];
  }

  /** Every scope that wants item `id`, by index. */
  wanters(id: ItemId): number[] {
    return [...this.#scopes].filter(([, s]) => s.wanted.has(id)).map(([i]) => i);
  }

  scopes(): number[] {
    return [...this.#scopes.keys()].sort();
  }
}
