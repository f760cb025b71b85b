/**
 * examples/production/wrangler.toml (the file docs/deploy.md says to copy) binds everything the
 * root wrangler.toml binds: compared generally, every list of tables in the root config (Durable
 * Object bindings, migrations, rate limiters, R2 buckets, queue producers and consumers, and any
 * kind added later), so a binding added to the root without the example fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => parse(readFileSync(join(ROOT, file), "utf8")) as Record<string, unknown>;

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `path → entries` for every array of tables outside [vars] (which a deployment fills with its
 * own values). An entry is the whole table but the fields a deployment names itself: queue names
 * and bucket names stay the operator's, so only the binding's name and its kind are compared.
 */
function tableLists(config: Record<string, unknown>, prefix = ""): Map<string, string[]> {
  const lists = new Map<string, string[]>();
  for (const [key, value] of Object.entries(config)) {
    if (prefix === "" && (key === "vars" || key === "env")) continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (Array.isArray(value) && value.every(isTable))
      lists.set(path, value.map((entry) => JSON.stringify(identity(path, entry))).sort());
    else if (isTable(value)) for (const [p, l] of tableLists(value, path)) lists.set(p, l);
  }
  return lists;
}

/** The queue a consumer reads is named by the deployment (SPONSON_DESTROY_QUEUE…): its settings are compared. */
function identity(path: string, entry: Record<string, unknown>): Record<string, unknown> {
  const { bucket_name: _b, queue: _q, dead_letter_queue: dlq, namespace_id: _n, id: _i, ...rest } = entry;
  return path === "queues.consumers" ? { ...rest, hasDeadLetterQueue: dlq !== undefined } : rest;
}

const root = read("wrangler.toml");
const example = read("examples/production/wrangler.toml");

describe("the production example against the root wrangler.toml", () => {
  it("has every binding, migration, rate limiter, queue producer and consumer of the root config", () => {
    const rootLists = tableLists(root);
    const exampleLists = tableLists(example);
    expect([...rootLists.keys()]).toEqual(
      expect.arrayContaining(["durable_objects.bindings", "migrations", "ratelimits", "r2_buckets"]),
    );
    for (const [path, entries] of rootLists) expect([path, exampleLists.get(path)]).toEqual([path, entries]);
  });

  it("runs the same sweep schedule", () => {
    expect(example.triggers).toEqual(root.triggers);
  });

  it("control: a root binding the example lacks is seen", () => {
    const lists = tableLists(root);
    const bindings = (root.durable_objects as { bindings: unknown[] }).bindings;
    const fewer = tableLists({ ...root, durable_objects: { bindings: bindings.slice(1) } });
    expect(fewer.get("durable_objects.bindings")).not.toEqual(lists.get("durable_objects.bindings"));
  });
});
