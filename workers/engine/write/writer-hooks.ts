/**
 * What a group write reaches through its run's parts (contracts/writer-parts.ts): an item's
 * provider context, and the test-only fault hook.
 */
import type { WriterParts } from "../contracts/writer-parts";
import type { FaultPoint } from "../deps";
import type { Item } from "../plan/item";
import type { Change } from "../rules/group-decisions";

export function contextOf(w: WriterParts, item: Item) {
  return w.contexts.get(item.connection);
}

/** The test-only fault hook, told which change of which group reached `point`. */
export async function fault(
  w: WriterParts,
  point: FaultPoint,
  { item, action }: Change,
  group: readonly Change[],
): Promise<void> {
  if (!w.deps.faults) return;
  await w.deps.faults(point, {
    line: item.line,
    key: item.key,
    parent: item.parent,
    action,
    runId: w.run.id,
    group: group.map((c) => ({ line: c.item.line, key: c.item.key, action: c.action })),
  });
}
