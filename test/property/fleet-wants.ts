/**
 * The fleet property's model of what each scope wants, from the history alone (never from a
 * ledger, an intent or an owner list). A successful apply makes the scope want exactly its plan; a
 * successful destroy, nothing. A run that failed, crashed or lost its lease leaves the items its
 * plan kept from before still wanted (nothing had a reason to touch them), and every item it may
 * have added or taken away in doubt: the provider may hold it or not, until a later run of the scope
 * settles it. Items in doubt are never counted as lost, nor as leaked; the final destroy of every
 * scope settles them all (the lists must then hold the foreign entries alone).
 */
/** The one capped list of an eviction world (./fleet-evictions.ts): what eviction may take. */
const EVICTED_OP = "auth0.webOrigin";

export class WantModel {
  readonly #wanted = new Map<number, Set<string>>();
  readonly #doubt = new Map<number, Set<string>>();

  #of(map: Map<number, Set<string>>, scope: number): Set<string> {
    let set = map.get(scope);
    if (!set) {
      set = new Set();
      map.set(scope, set);
    }
    return set;
  }

  wanted(scope: number): string[] {
    return [...this.#of(this.#wanted, scope)];
  }

  doubtful(scope: number): string[] {
    return [...this.#of(this.#doubt, scope)];
  }

  /** The scope's receipt of a previous version says it owns `ledger`; its intents are in doubt. */
  planted(scope: number, ledger: readonly string[], intents: readonly string[]): void {
    for (const id of ledger) this.#of(this.#wanted, scope).add(id);
    for (const id of intents) this.#of(this.#doubt, scope).add(id);
  }

  applied(scope: number, plan: readonly string[]): void {
    this.#wanted.set(scope, new Set(plan));
    this.#doubt.set(scope, new Set());
  }

  destroyed(scope: number): void {
    this.#wanted.set(scope, new Set());
    this.#doubt.set(scope, new Set());
  }

  /** An apply (plan) or destroy (plan: []) that did not end well: what it may have touched is in doubt. */
  doubted(scope: number, plan: readonly string[]): void {
    const before = this.#of(this.#wanted, scope);
    const doubt = this.#of(this.#doubt, scope);
    const kept = [...before].filter((id) => plan.includes(id));
    for (const id of [...before, ...plan]) if (!kept.includes(id)) doubt.add(id);
    this.#wanted.set(scope, new Set(kept));
  }

  /**
   * Days passed (eviction histories): every scope may be stale, so a later write that needs room on
   * a capped list (web origins) may evict its entries there. They are in doubt — neither lost nor
   * leaked — until the scope's next successful apply or destroy says again what it wants; its
   * entries elsewhere stay wanted (nothing else is ever evicted).
   */
  wentIdle(): void {
    for (const [scope, set] of this.#wanted)
      for (const id of set)
        if (id.startsWith(`${EVICTED_OP} `)) {
          set.delete(id);
          this.#of(this.#doubt, scope).add(id);
        }
  }

  scopes(): number[] {
    return [...new Set([...this.#wanted.keys(), ...this.#doubt.keys()])].sort();
  }

  /** Every item some scope surely wants. */
  allWanted(): Map<string, number[]> {
    const all = new Map<string, number[]>();
    for (const [scope, set] of this.#wanted)
      for (const id of set) all.set(id, [...(all.get(id) ?? []), scope]);
    return all;
  }

  allDoubtful(): Set<string> {
    return new Set([...this.#doubt.values()].flatMap((s) => [...s]));
  }
}
