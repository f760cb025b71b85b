/**
 * docs/deploy.md's "Resources" step creates every queue the production example (the file it says
 * to copy) produces to, consumes or dead-letters into, and its bucket: a deploy naming a queue
 * that does not exist fails, so a queue added to the config without its command fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const DEPLOY = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");
const config = parse(readFileSync(join(ROOT, "examples", "production", "wrangler.toml"), "utf8")) as {
  queues?: { producers?: { queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  r2_buckets?: { bucket_name: string }[];
};

function created(kind: "queues" | "r2 bucket"): Set<string> {
  const pattern = new RegExp(`npx wrangler ${kind} create (\\S+)`, "g");
  return new Set([...DEPLOY.matchAll(pattern)].map((m) => m[1] as string));
}

describe("docs/deploy.md creates what the production example names", () => {
  it("every queue: producers, consumers and dead letters", () => {
    const queues = new Set([
      ...(config.queues?.producers ?? []).map((p) => p.queue),
      ...(config.queues?.consumers ?? []).flatMap((c) => [c.queue, c.dead_letter_queue ?? []].flat()),
    ]);
    expect(queues).toContain("sponson-notifications");
    expect(queues).toContain("sponson-notifications-dlq");
    const missing = [...queues].filter((q) => !created("queues").has(q));
    expect(missing).toEqual([]);
  });

  it("the receipts bucket", () => {
    const buckets = (config.r2_buckets ?? []).map((b) => b.bucket_name);
    expect(buckets.length).toBeGreaterThan(0);
    expect(buckets.filter((b) => !created("r2 bucket").has(b))).toEqual([]);
  });
});
