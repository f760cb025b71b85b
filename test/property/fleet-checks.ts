/**
 * The fleet property's invariants, each read from its own authority and judged against the model
 * (./fleet-wants.ts), never against the system's own account of what should be there:
 *   - lists: every object holds its foreign entries and every entry a live scope surely wants
 *     (`lost` otherwise), and nothing no scope may want (`leaked`), once each;
 *   - owners: every owner a lock object records for an item is named by that scope's ledger or
 *     intents (same op, key and parent), and every entry a scope's ledger names is named as that
 *     scope's by the lock (or covered by an intent of the scope);
 *   - lines: every line of a run has a result, and a result that says the item is there
 *     (`created`, `unchanged`, `shared`, `foreign`) is true of the provider after the run.
 */
import { env } from "cloudflare:workers";
import type { OwnershipRecord } from "../../shared/schemas/ownership";
import type { Receipt } from "../../shared/schemas/receipt";
import type { LineResult } from "../../shared/schemas/run";
import { ownerOf } from "../../workers/engine/rules/ownership";
import { lockStub, readLock } from "../../workers/locks/lock-target";
import { R2ReceiptStore } from "../../workers/receipts/r2-receipt-store";
import { durableIntents } from "../helpers/engine";
import { checkEntries } from "../helpers/entry-history";
import { scopeAddress } from "../helpers/repositories";
import { itemId, OBJECTS } from "./fleet-model";
import type { RunOutcome } from "./fleet-steps";
import type { WantModel } from "./fleet-wants";
import {
  ENVIRONMENT,
  entriesOf,
  type FleetWorld,
  foreignItems,
  identityOf,
  outsideItems,
  parentKey,
  scopeKey,
} from "./fleet-world";

const PRESENT = new Set(["created", "unchanged", "shared", "foreign"]);
const objects = () => OBJECTS.map((_, i) => i);

export async function allEntries(world: FleetWorld): Promise<string[]> {
  return (await Promise.all(objects().map((o) => entriesOf(world, o)))).flat();
}

/** Lost, leaked and doubled entries, against the model (test/helpers/entry-history.ts). */
export async function checkLists(world: FleetWorld, model: WantModel, when: string): Promise<string[]> {
  const wanted = new Map([...model.allWanted()].map(([id, scopes]) => [id, scopes.map(world.scopeName)]));
  // Another writer's entries (the Clerk race) are theirs from then on: kept, as foreign entries are.
  const foreign = [...objects().flatMap(foreignItems), ...(await outsideItems(world))];
  return checkEntries(await allEntries(world), { foreign, wanted, doubt: model.allDoubtful() }, { when });
}

/** Item id of a line result (its parent is the object's identity). */
function lineItem(world: FleetWorld, line: LineResult): string {
  const object = objects().find((o) => identityOf(world, o) === line.parent) ?? -1;
  return itemId({ op: line.op as never, url: line.key, object }, "");
}

/** Every line of a run has a result; one that says the item is there is true of the provider. */
export function checkLines(
  world: FleetWorld,
  outcome: RunOutcome,
  have: readonly string[],
  where: string,
): string[] {
  const result = outcome.result;
  if (!result) return [];
  const problems: string[] = [];
  for (const line of outcome.plan ?? []) {
    const got = result.lines.filter((l) => l.id === line.label);
    if (got.length === 0)
      problems.push(
        `${where}: line ${line.label} has no result (run ${result.run.status} ${result.run.error?.code ?? ""})`,
      );
  }
  // A run that failed or crashed on no fault of its own is an untrue answer in itself; a capped
  // list full of live scopes' entries is a refusal of its own (LIST_FULL, nothing written), and so
  // is a share used up (QUOTA_EXCEEDED: whether it was, ./fleet-quota.ts judges by the model).
  const listFull = world.evicting && result.run.error?.code === "LIST_FULL";
  const quota = world.quota && result.run.error?.code === "QUOTA_EXCEEDED";
  if (result.run.status !== "succeeded" && !outcome.faultFired && !outcome.shortWait && !listFull && !quota)
    problems.push(
      `${where}: the run failed with no fault aimed at it: ${result.run.error?.code} ${result.run.error?.message ?? ""}`,
    );
  // Once a recovery of the scope ran behind the stale run's back, what its lines said may since
  // have been undone by that recovery: the lines were true when given.
  if (outcome.recoveredMeanwhile) return problems;
  for (const line of result.lines) {
    if (PRESENT.has(line.result) && !have.includes(lineItem(world, line)))
      problems.push(`${where}: line ${line.id} says ${line.result} but ${line.op} ${line.key} is not there`);
  }
  if (result.run.status === "succeeded")
    for (const line of result.lines)
      if (!["created", "unchanged", "shared", "foreign", "removed", "released"].includes(line.result))
        problems.push(`${where}: a succeeded run's line ${line.id} says ${line.result}`);
  return problems;
}

/**
 * Ledger and lock say the same (both ways): every owner a lock object records is named by that
 * scope's ledger or intents, and every entry a scope's ledger names on an object whose lock keeps
 * ownership is named as that scope's by the lock — unless an intent of the scope names it (a run
 * between its ownership change and its ledger save; recovery settles it). Both are the system's
 * records: the lists' checks against the model stand beside this one.
 */
export async function checkOwners(
  world: FleetWorld,
  scopes: readonly number[],
  when: string,
): Promise<string[]> {
  const store = new R2ReceiptStore(env.RECEIPTS);
  const byOwner = new Map(scopes.map((i) => [ownerOf(scopeAddress(ENVIRONMENT, world.scopeName(i))), i]));
  // Intents are durable in the receipt or in the scope lock (a run that died before its final save).
  const receipts = new Map(
    await Promise.all(
      scopes.map(async (i) => {
        const { receipt } = await store.read(scopeAddress(ENVIRONMENT, world.scopeName(i)));
        return [i, { ...receipt, intents: await durableIntents(ENVIRONMENT, world.scopeName(i)) }] as const;
      }),
    ),
  );
  const problems: string[] = [];
  for (const object of objects()) {
    const key = await parentKey(world, object);
    const parent = identityOf(world, object);
    const record = await lockStub(env, key).ownership({ key });
    problems.push(...unbackedLedger({ world, scopes, receipts, record, parent, object }, when));
    for (const row of record.items) {
      for (const owner of row.owners) {
        const scope = byOwner.get(owner);
        const receipt = scope === undefined ? undefined : receipts.get(scope);
        const named = [...(receipt?.ledger ?? []), ...(receipt?.intents ?? [])].some(
          (e) => e.op === row.op && e.key === row.key && e.parent === parent,
        );
        if (!named)
          problems.push(
            `${when}: ${owner} owns ${row.op} ${row.key} @${object} but neither its ledger nor its intents name it`,
          );
      }
    }
  }
  return problems;
}

interface LedgerAndLock {
  world: FleetWorld;
  scopes: readonly number[];
  receipts: ReadonlyMap<number, Pick<Receipt, "ledger" | "intents">>;
  record: OwnershipRecord;
  parent: string;
  object: number;
}

/** Ledger entries on `parent` its lock does not name the scope an owner of, with no intent for them. */
function unbackedLedger({ world, scopes, receipts, record, parent, object }: LedgerAndLock, when: string) {
  // A lock no holder of this version has decided under yet (an old receipt's object) knows no owners.
  if (record.items.length === 0 && record.locators.length === 0) return [];
  const problems: string[] = [];
  for (const i of scopes) {
    const receipt = receipts.get(i);
    const owner = ownerOf(scopeAddress(ENVIRONMENT, world.scopeName(i)));
    for (const e of receipt?.ledger ?? []) {
      if (e.parent !== parent) continue;
      const row = record.items.find((r) => r.op === e.op && r.key === e.key);
      if (row?.owners.includes(owner)) continue;
      if (receipt?.intents.some((n) => n.op === e.op && n.key === e.key && n.parent === parent)) continue;
      problems.push(
        `${when}: ${world.scopeName(i)}'s ledger names ${e.op} ${e.key} @${object} but the lock names ${row?.owners.join(",") || "nobody"} as its owners`,
      );
    }
  }
  return problems;
}

export async function checkQuiet(
  world: FleetWorld,
  scopes: readonly number[],
  when: string,
): Promise<string[]> {
  const problems: string[] = [];
  for (const i of scopes) {
    for (const intent of await durableIntents(ENVIRONMENT, world.scopeName(i)))
      problems.push(
        `${when}: intent left in ${world.scopeName(i)}: ${intent.action} ${intent.op} ${intent.key}`,
      );
  }
  const keys = [
    ...scopes.map((i) => scopeKey(world, i)),
    ...(await Promise.all(objects().map((o) => parentKey(world, o)))),
  ];
  for (const lock of await Promise.all(keys.map((k) => readLock(env, k))))
    if (lock.held || lock.waiters.length > 0)
      problems.push(`${when}: lock ${lock.key} still held by ${lock.holder}`);
  return problems;
}

/** After every scope is destroyed: the lists hold the foreign entries alone, and no lock object names an owner. */
export async function checkEmpty(world: FleetWorld): Promise<string[]> {
  const problems: string[] = [];
  const foreign = [...objects().flatMap(foreignItems), ...(await outsideItems(world))];
  const nothingWanted = { foreign, wanted: [], doubt: [] };
  problems.push(
    ...checkEntries(await allEntries(world), nothingWanted, { when: "after destroying every scope" }),
  );
  for (const object of objects()) {
    const key = await parentKey(world, object);
    const record = await lockStub(env, key).ownership({ key });
    for (const row of record.items)
      if (row.owners.length > 0)
        problems.push(
          `after destroying every scope: ${row.op} ${row.key} @${object} still owned by ${row.owners.join(",")}`,
        );
  }
  return problems;
}
