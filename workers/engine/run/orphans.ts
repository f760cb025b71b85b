/**
 * Orphans (docs/design.md, "Ownership of shared entries"): entries on an owned object's lists that
 * no scope owns and that are not foreign. Finding them reads the providers without any lease;
 * removing one records who removes it and why first, then takes the object's lease, checks again
 * that nobody owns it, and completes that record with the outcome.
 */
import { SponsonError } from "../../../shared/errors";
import type { Orphan, OrphanList, OrphanRemoval, OrphanRemovalBody } from "../../../shared/schemas/orphans";
import { type ItemOwnership, type Locator, scopeOfOwner } from "../../../shared/schemas/ownership";
import type { Receipt } from "../../../shared/schemas/receipt";
import { repositoryRefById } from "../../../shared/schemas/repository";
import { entryOfKey, type OpSpec } from "../../adapters/op-spec";
import { outcomeOfError } from "../../audit/audit-intent";
import type { OrphanRemovalAudit } from "../../audit/orphan-audit";
import { ParentLease } from "../../locks/parent-lock";
import { WaitDeadline } from "../../locks/wait-deadline";
import type { EngineDeps, OwnedObjects } from "../deps";
import { runLeaseOptions } from "../lease/lease-settings";
import { sameItem } from "../plan/item";
import type { ProviderContexts } from "../provider-context";
import { Fence } from "../write/fence";
import { readBeforeLease, readUnderLease, rememberChanges } from "../write/recent-writes-section";
import { newRunId } from "./run";

/** Environments where `op` may put `key` on `parent` through `connection`, per the write policy. */
function admittedIn(deps: EngineDeps, connection: string, op: string, parent: string, key: string): string[] {
  return deps.connections.environmentsOf(connection).filter((environment) => {
    try {
      deps.policy?.check({ environment, op, identity: parent, item: entryOfKey(deps.ops.get(op), key) });
      return true;
    } catch (err) {
      if (err instanceof SponsonError) return false;
      throw err;
    }
  });
}

function ownedObjects(deps: EngineDeps): OwnedObjects {
  if (!deps.owned) throw new SponsonError("INTERNAL", "the owned-object index is not wired");
  return deps.owned;
}

/**
 * Owners whose receipt no longer records the item: their receipt was lost (or never saved after
 * a crash), so no run of theirs will ever remove it. An item owned only by such ghosts is an orphan.
 */
async function ghostsOf(
  deps: EngineDeps,
  parent: string,
  own: ItemOwnership,
  cache: Map<string, Receipt>,
): Promise<string[]> {
  const ghosts: string[] = [];
  for (const owner of own.owners) {
    const scope = scopeOfOwner(owner);
    if (!scope) continue;
    let receipt = cache.get(owner);
    if (!receipt) {
      const address = {
        repository: repositoryRefById(scope.repositoryId, []),
        environment: scope.environment,
        scope: scope.scope,
      };
      // A run's intents are in its receipt before its provider write (docs/design.md, "Writing
      // one object's items"): an item one of them names is that scope's, not a ghost's.
      receipt = (await deps.store.read(address)).receipt;
      cache.set(owner, receipt);
    }
    const records = [...receipt.ledger, ...receipt.intents];
    // The same op and key on another object is another item: it does not keep this one owned.
    if (!records.some((r) => sameItem(r, { op: own.op, key: own.key, parent }))) ghosts.push(owner);
  }
  return ghosts;
}

/** Nobody but ghosts owns it, and it was not there before the list was first looked at. */
async function orphaned(
  deps: EngineDeps,
  parent: string,
  own: ItemOwnership | undefined,
  cache: Map<string, Receipt>,
) {
  if (!own) return { orphan: true, ghosts: [] as string[] };
  if (own.foreign) return { orphan: false, ghosts: [] as string[] };
  const ghosts = await ghostsOf(deps, parent, own, cache);
  return { orphan: ghosts.length === own.owners.length, ghosts };
}

/** Every owned object's orphans, or only those of the object `only` names (its dashboard page). */
export async function findOrphans(
  deps: EngineDeps,
  contexts: ProviderContexts,
  only?: string,
): Promise<OrphanList> {
  const owned = ownedObjects(deps);
  const orphans: Orphan[] = [];
  const problems: string[] = [];
  const receipts = new Map<string, Receipt>();
  const objects = only === undefined ? await owned.list() : [{ identity: only }];
  for (const { identity } of objects) {
    const record = await owned.read(identity);
    for (const locator of record.locators) {
      const op = deps.ops.get(locator.op);
      if (!op) continue;
      let present: string[];
      try {
        // Merged with the lock's recent writes: an entry a scope just removed that the provider
        // still shows is not an orphan (docs/design.md, "Providers that forget a write").
        const ctx = contexts.get(locator.connection);
        present = op.batch
          ? op.batch.keys(
              await readBeforeLease(deps, { batch: op.batch, ctx, params: locator.params, parent: identity }),
              locator.params,
            )
          : await op.list(ctx, locator.params);
      } catch (err) {
        problems.push(
          `${identity} (${locator.op}): ${err instanceof Error ? deps.secrets.redact(err.message) : "unreadable"}`,
        );
        continue;
      }
      for (const key of present) {
        const own = record.items.find((i) => i.op === locator.op && i.key === key);
        if (!(await orphaned(deps, identity, own, receipts)).orphan) continue;
        const environments = admittedIn(deps, locator.connection, locator.op, identity, key);
        if (environments.length === 0) continue;
        orphans.push({ parent: identity, op: locator.op, key, connection: locator.connection, environments });
      }
    }
  }
  return { orphans, problems };
}

interface RemovalTarget {
  req: OrphanRemovalBody & { actor: string };
  op: OpSpec;
  locator: Locator;
  params: Record<string, string>;
  runId: string;
}

/** The params that address `key` on the list `locator` names, as the op validates them. */
function paramsFor(op: OpSpec, locator: Locator, key: string) {
  const named = op.paramsOfKey ? op.paramsOfKey(key) : { [op.itemParam]: key };
  const parsed = named ? op.params.safeParse({ ...locator.params, ...named }) : null;
  if (!parsed?.success) throw new SponsonError("VALIDATION", `"${key}" is not an item of ${op.name}`);
  return parsed.data;
}

export async function removeOrphan(
  deps: EngineDeps,
  contexts: ProviderContexts,
  req: OrphanRemovalBody & { actor: string },
): Promise<OrphanRemoval> {
  const owned = ownedObjects(deps);
  const op = deps.ops.get(req.op);
  const locator = (await owned.read(req.parent)).locators.find((l) => l.op === req.op);
  if (!op || !locator) throw new SponsonError("NOT_FOUND", `no list of ${req.op} is known on ${req.parent}`);
  if (admittedIn(deps, locator.connection, req.op, req.parent, req.key).length === 0) {
    throw new SponsonError("FORBIDDEN", `no environment's policy admits ${req.key} on ${req.parent}`, {
      rule: "policy.orphan",
    });
  }
  const params = paramsFor(op, locator, req.key);
  const runId = newRunId(deps.clock.now());
  // The intent before anything is sent, even a token exchange (docs/design.md, "Audit before
  // acting"): a put that fails refuses the removal.
  const startedAt = deps.clock.now();
  const intent: OrphanRemovalAudit = {
    ...req,
    at: startedAt,
    runId,
    id: runId,
    startedAt,
    status: "started",
  };
  await owned.recordRemovalIntent(intent);
  let removal: OrphanRemoval;
  try {
    removal = await removeUnderLease(deps, contexts, { req, op, locator, params, runId });
  } catch (err) {
    await owned.recordRemoval({ ...intent, ...outcomeOfError(err), at: deps.clock.now() });
    throw err;
  }
  await owned.recordRemoval({ ...removal, id: runId, startedAt, status: "done" });
  return removal;
}

async function removeUnderLease(
  deps: EngineDeps,
  contexts: ProviderContexts,
  { req, op, locator, params, runId }: RemovalTarget,
): Promise<OrphanRemoval> {
  // Token exchanges before the lease, like every run.
  await contexts.prepare([locator.connection]);
  const ctx = contexts.get(locator.connection);
  const lease = await ParentLease.acquire(
    await deps.locks.parent(req.parent),
    runId,
    runLeaseOptions(deps, { wait: true, deadline: WaitDeadline.start(deps.waitTimeoutMs, deps.clock) }),
  );
  try {
    // Checked again under the lease: a scope may have claimed it since the report.
    const own = (await lease.owners([{ op: req.op, key: req.key }])).items[0];
    const { orphan, ghosts } = await orphaned(deps, req.parent, own, new Map());
    if (!orphan) {
      throw new SponsonError(
        "CONCURRENT_MODIFICATION",
        own?.foreign
          ? `${req.key} is foreign: it was there before any scope and is never removed`
          : `${req.key} is no longer an orphan: a scope owns it`,
        { owners: own?.owners.length ?? 0, foreign: own?.foreign ?? false },
        { retriable: false },
      );
    }
    // Fenced like a run's write, by the same Fence (fence.ts): the lease checked right before and
    // after it; an unknown outcome abandons the lease (the lock-delay covers a late landing) and
    // throws, so nothing is recorded as removed that a lost lease may not have covered.
    const fence = new Fence({
      scope: null,
      parent: lease,
      checkAfter: deps.controls.fencing,
      what: `${req.parent}: orphan ${req.key}`,
    });
    const fenced = fence.context(ctx);
    let outcome: OrphanRemoval["outcome"] = "already-gone";
    const batch = op.batch;
    if (batch) {
      // Read as every write under this lease does: with the lock's recent writes merged over a
      // provider that forgets writes, so another scope's add the read does not show yet stays.
      const state = await readUnderLease(deps, { batch, ctx, params, lease });
      if (batch.keys(state, params).includes(req.key)) {
        await fence.write(async () => {
          await batch.write(fenced, params, state, (s) => batch.edit(s, params, "remove"));
          // Remembered, so a later merged read does not put back the entry's older remembered add.
          await rememberChanges(deps, batch, lease, [
            { opName: op.name, key: req.key, params, action: "remove" },
          ]);
        });
        outcome = "removed";
      }
    } else {
      const seen = await op.inspect(ctx, params);
      if (seen.present) {
        await fence.write(() => op.remove(fenced, params, seen));
        outcome = "removed";
      }
    }
    if (ghosts.length > 0) {
      await lease.changeOwners(
        ghosts.map((owner) => ({ op: req.op, key: req.key, action: "remove", owner })),
      );
    }
    return { ...req, at: deps.clock.now(), runId, outcome };
  } finally {
    // A no-op once the write fence abandoned it: it then ends by expiry, the lock-delay after.
    await lease.release();
  }
}
