/**
 * The engine histories' model of what each scope should own on the application, kept from the
 * history's steps and outcomes alone — never from receipts, ledgers or lock records, which are what
 * is under test. Each entry is `<list field> <url>`. After a step the model says, per scope:
 * - `wanted`: entries the scope must hold (lost if missing);
 * - `doubt`: entries a crashed, failed, concurrent or uncertain step may or may not have left
 *   (never counted lost or leaked);
 * - `created`: what the scope's last apply that created something created, while that is known
 *   for certain (a rollback removes exactly those, docs/design.md "Run algorithm").
 * Anything else on the lists that is not foreign is leaked (test/helpers/entry-history.ts).
 */
import type { ListField } from "../../dev/emulators/auth0/state";
import { checkEntries } from "../helpers/entry-history";
import { LINES, type Step } from "./history-model";
import type { StepOutcome, World } from "./history-runner";
import { FIELD_OF_OP, type Lists, UNRELATED } from "./world-state";

interface ScopeModel {
  wanted: Set<string>;
  doubt: Set<string>;
  /** null: no apply known to have created something, or not known for certain which. */
  created: Set<string> | null;
  /** false once a step's effect on the scope's record is not known (its rollback target unknown). */
  certain: boolean;
}

const entryOf = (field: ListField, url: string) => `${field} ${url}`;

export class ScopeEntriesModel {
  readonly #scopes = new Map<number, ScopeModel>();
  readonly #world: World;

  constructor(world: World) {
    this.#world = world;
  }

  /** Folds one group's outcomes in: steps on one scope at once make that scope uncertain. */
  group(outcomes: readonly StepOutcome[]): void {
    const byScope = new Map<number, StepOutcome[]>();
    for (const o of outcomes) byScope.set(o.step.scope, [...(byScope.get(o.step.scope) ?? []), o]);
    for (const [scope, steps] of byScope) {
      const model = this.#scope(scope);
      if (steps.length === 1) this.#step(model, steps[0] as StepOutcome);
      else
        this.#uncertain(
          model,
          steps.flatMap((o) => this.#planOf(o.step)),
        );
    }
  }

  /** After the recovery pass nothing changes what a scope wants: only doubt may go either way. */
  check(lists: Lists, when: string): string[] {
    const problems: string[] = [];
    for (const field of Object.keys(lists) as ListField[]) {
      const mine = (entries: Iterable<string>) =>
        [...entries].filter((e) => e.startsWith(`${field} `)).map((e) => e.slice(field.length + 1));
      const all = [...this.#scopes.values()];
      problems.push(
        ...checkEntries(
          lists[field],
          {
            foreign: UNRELATED[field],
            wanted: mine(all.flatMap((s) => [...s.wanted])),
            doubt: mine(all.flatMap((s) => [...s.doubt])),
          },
          { when: `${when} (${field})` },
        ),
      );
    }
    return problems;
  }

  #scope(index: number): ScopeModel {
    let model = this.#scopes.get(index);
    if (!model) {
      model = { wanted: new Set(), doubt: new Set(), created: null, certain: true };
      this.#scopes.set(index, model);
    }
    return model;
  }

  #planOf(step: Step): string[] {
    if (step.action !== "apply") return [];
    return step.lines.map((i) => {
      const line = LINES[i];
      const field = line ? FIELD_OF_OP[line.op] : undefined;
      if (!line || !field) throw new Error(`no line ${i}`);
      return entryOf(field, line.url.replace("{scope}", this.#world.scopeName(step.scope)));
    });
  }

  #step(model: ScopeModel, outcome: StepOutcome): void {
    const { step } = outcome;
    const plan = this.#planOf(step);
    if (outcome.refused) return;
    const faulted = outcome.faultFired && step.fault.kind !== "none";
    if (faulted && (outcome.crashed || outcome.result?.run.status === "failed")) {
      // A crash or a failure keeps what both the old state and the plan want (no intent touches
      // it); what it came to add or remove may be either way until a recovery or the next run.
      const keep = step.action === "apply" ? [...model.wanted].filter((e) => plan.includes(e)) : [];
      // A write of unknown outcome leaves its object in doubt: the run's rollback takes it no more,
      // so what the run created there before stays (docs/design.md, "Fencing around a write").
      const unknown = outcome.result?.run.error?.detail?.outcome === "unknown";
      const moving = [...model.wanted, ...(outcome.crashed || unknown ? plan : [])].filter(
        (e) => !keep.includes(e),
      );
      if (step.action === "rollback" && model.created) moving.push(...model.created);
      this.#settle(model, keep, moving);
      model.certain = false;
      model.created = null;
      return;
    }
    if (step.action === "apply") {
      const created = plan.filter((e) => !model.wanted.has(e) && !model.doubt.has(e));
      const tainted = plan.some((e) => model.doubt.has(e));
      this.#settle(model, plan, []);
      // A clean apply that created something is the rollback's target from now on, whatever came
      // before; one whose plan met doubtful entries may have created them: the target is unknown.
      if (tainted) {
        model.created = null;
        model.certain = false;
      } else if (created.length > 0) {
        model.created = new Set(created);
        model.certain = true;
      }
    } else if (step.action === "destroy") {
      this.#settle(model, [], []);
      model.created = null;
    } else if (model.certain && model.created) {
      // Rollback of the apply known to have created these: exactly they go.
      const gone = model.created;
      this.#settle(
        model,
        [...model.wanted].filter((e) => !gone.has(e)),
        [],
      );
      model.created = null;
      model.certain = false; // which apply the next rollback targets is the receipt's business
    } else {
      this.#uncertain(model, []);
    }
  }

  #settle(model: ScopeModel, wanted: readonly string[], doubt: readonly string[]): void {
    model.wanted = new Set(wanted);
    for (const e of doubt) model.doubt.add(e);
    for (const e of wanted) model.doubt.delete(e);
  }

  #uncertain(model: ScopeModel, plans: readonly string[]): void {
    this.#settle(model, [], [...model.wanted, ...plans, ...(model.created ?? [])]);
    model.certain = false;
    model.created = null;
  }
}
