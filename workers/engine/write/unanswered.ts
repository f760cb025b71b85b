/**
 * What a write attempt that got no answer leaves behind (docs/design.md, "Fencing around a write";
 * "An unanswered attempt ends the lease quietly"): it may still land, whatever its retries were
 * told, after any later request sent under the same lease.
 */
import { isSponsonError, SponsonError } from "../../../shared/errors";
import { LeaseLostOnRead } from "../../adapters/http/provider-error";
import type { Item } from "../plan/item";

/**
 * The items (op and key; the object is the lease's own) a write attempt under one lease got no
 * answer for: no later request under that lease writes them (provider-write.ts), so a late
 * landing never overtakes a later request of the same holder.
 */
export class UnansweredItems {
  readonly #ids = new Set<string>();

  has(item: Item): boolean {
    return this.#ids.has(idOf(item));
  }

  add(item: Item): void {
    this.#ids.add(idOf(item));
  }
}

function idOf(item: Item): string {
  return `${item.opName}\n${item.key}`;
}

/**
 * No answer, or one that does not say whether the write landed: the lease lost around it, or the
 * transport's verdict on a write attempt that may have landed (outcome "unknown",
 * adapters/http/provider-request.ts). A read's or a token exchange's failure is never one, the
 * lease lost around it included (LeaseLostOnRead): nothing it sent can land.
 */
export function mayHaveLanded(err: unknown): boolean {
  if (!isSponsonError(err) || err instanceof LeaseLostOnRead) return false;
  if (err.code === "LOCK_LOST") return true;
  return err.code === "PROVIDER_ERROR" && err.outcome === "unknown";
}

/**
 * Why the holder's own write on such an item fails its group with an unknown outcome (the cause
 * Fence.unknownOutcome is given): sent, the late landing may undo it; not sent, nobody writes it.
 */
export function notSentAgain(items: readonly Item[]): SponsonError {
  return new SponsonError(
    "CONCURRENT_MODIFICATION",
    `${items.map((i) => i.key).join(", ")}: an earlier request on it under this lease got no answer and may still land, so it is not written again under this lease`,
  );
}
