/**
 * The fill level of each capped list on a parent lock's object (docs/design.md, "Lists at their
 * cap"), kept in the lease's meta table as one small JSON value: written by the holder's release
 * (no extra call), read by the lock detail and the sweep. Each list also remembers whether the
 * sweep told operators it crossed the near-capacity share, so it is told once per crossing.
 */
import { type FillLevel, fillLevelsSchema, isNearCapacity, listId } from "../shared/schemas/fill-level";
import type { OwnershipShares } from "../shared/schemas/ownership";
import type { LeaseStore } from "./lease-store";

const META_KEY = "fill_levels";

/**
 * `claimed`: a sweep is telling (since then); `warned`: it was told. A claim whose sweep died
 * before confirming lapses after a day (docs/operations.md, "What each kind means, and how to
 * recover": `list-near-capacity`).
 */
type Kept = FillLevel & { warned?: number; claimed?: number };

export const NEAR_CAPACITY_CLAIM_LAPSE_MS = 86_400_000;

const due = (l: Kept, now: number) =>
  l.warned === undefined && (l.claimed === undefined || now - l.claimed >= NEAR_CAPACITY_CLAIM_LAPSE_MS);

function readKept(store: LeaseStore): Kept[] {
  const raw = store.meta(META_KEY);
  if (raw === null) return [];
  try {
    return JSON.parse(raw) as Kept[];
  } catch {
    return [];
  }
}

function keep(store: LeaseStore, lists: Kept[]): void {
  store.setMeta(META_KEY, JSON.stringify(lists));
}

/**
 * The release's fills replace each list's older one (a list: op and, for an op with several lists
 * on the object, its name); a list back at or below the share may warn again.
 */
export function recordFills(store: LeaseStore, fills: unknown): void {
  const parsed = fillLevelsSchema.safeParse(fills);
  // Only ever sent by the engine: a malformed value is dropped, never failing the release.
  if (!parsed.success || parsed.data.length === 0) return;
  const lists = readKept(store);
  for (const fill of parsed.data) {
    const at = lists.findIndex((l) => listId(l) === listId(fill));
    const old = at < 0 ? undefined : lists[at];
    if (old && old.at > fill.at) continue;
    const still = isNearCapacity(fill);
    const warned = old?.warned !== undefined && still ? { warned: old.warned } : {};
    const claimed = old?.claimed !== undefined && still ? { claimed: old.claimed } : {};
    const next = { ...fill, ...warned, ...claimed };
    if (at < 0) lists.push(next);
    else lists[at] = next;
  }
  keep(store, lists);
}

export function fillsOf(store: LeaseStore): FillLevel[] {
  return readKept(store).map(({ warned: _, claimed: __, repositories: ___, ...fill }) => fill);
}

/**
 * Each fill of an op's one list with each repository's share of the op's entries, largest first,
 * as the lock's ownership counts them now (docs/design.md, "A share of each list"). One of an op's
 * several lists (`list`) has none: the lock keeps an entry's op, not which of its lists holds it.
 */
export function withRepositoryShares(fills: readonly FillLevel[], shares: OwnershipShares): FillLevel[] {
  return fills.map((fill) => {
    if (fill.list !== undefined) return fill;
    const repositories = shares.repositories
      .filter((r) => r.op === fill.op)
      .sort((a, b) => b.entries - a.entries || a.repositoryId - b.repositoryId)
      .map((r) => ({ id: r.repositoryId, entries: r.entries }));
    return { ...fill, repositories };
  });
}

/**
 * The lists above the near-capacity share; each not yet told since it crossed is claimed now (in
 * the step that decides it), so two sweeps at once tell once.
 */
export function claimNearCapacity(store: LeaseStore, now: number): Array<FillLevel & { notify: boolean }> {
  const lists = readKept(store);
  const near = lists.filter(isNearCapacity);
  const answer = near.map((l) => {
    const { warned: _, claimed: __, ...fill } = l;
    return { ...fill, notify: due(l, now) };
  });
  if (near.some((l) => due(l, now))) {
    keep(
      store,
      lists.map((l) => (isNearCapacity(l) && due(l, now) ? { ...l, claimed: now } : l)),
    );
  }
  return answer;
}

/** A claimed notice whose send failed: the next sweep tells. `ops`: the lists' `listId`s. */
export function unclaimNearCapacity(store: LeaseStore, ops: readonly string[]): void {
  const lists = readKept(store);
  keep(
    store,
    lists.map(({ claimed, ...l }) =>
      ops.includes(listId(l)) || claimed === undefined ? l : { ...l, claimed },
    ),
  );
}

/** A claimed notice the sweep sent: told for this crossing. `ops`: the lists' `listId`s. */
export function confirmNearCapacity(store: LeaseStore, ops: readonly string[]): void {
  const lists = readKept(store);
  keep(
    store,
    lists.map(({ claimed, ...l }) =>
      ops.includes(listId(l)) && claimed !== undefined
        ? { ...l, warned: claimed }
        : claimed === undefined
          ? l
          : { ...l, claimed },
    ),
  );
}
