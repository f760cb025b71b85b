/**
 * What a parent lock object remembers of the writes made to its provider object, for providers
 * that may not show a write to the next read (docs/design.md, "Providers that forget a write").
 * One row per item: the latest write of it, until `until`.
 */
import { z } from "zod";

export const recentWriteSchema = z.object({
  /** The op of the item and its key, as ownership names items. */
  op: z.string(),
  key: z.string(),
  /** The item's params: the writer re-applies the write with the op's own edit. */
  params: z.record(z.string(), z.string()),
  /** `add`: the item was written present; `remove`: written absent. */
  action: z.enum(["add", "remove"]),
  /** When the provider accepted the write (epoch ms), and until when it is remembered. */
  at: z.number().int(),
  until: z.number().int(),
});
export type RecentWrite = z.infer<typeof recentWriteSchema>;
