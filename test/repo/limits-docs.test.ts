/**
 * docs/configuration.md, "Limits", says each fair-use limit's default as the code and the wrangler
 * config have it: a limit changed in one place and not the other fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import {
  MAX_FEED_SOCKETS,
  MAX_FEED_SOCKETS_PER_REPOSITORY,
  MAX_FEED_SOCKETS_PER_TOKEN,
} from "../../durable-objects/feed-sockets";
import { MAX_WAITERS_PER_REPOSITORY } from "../../durable-objects/lease-rules";
import { MAX_PLAN_OBJECTS } from "../../workers/engine/plan/object-limit";

const ROOT = join(import.meta.dirname, "..", "..");
const CONFIGURATION = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
const LIMITS = CONFIGURATION.slice(CONFIGURATION.indexOf("\n## Limits\n")).split("\n## ")[1] ?? "";

/** The default column of the Limits row naming `name` in its "set in" column. */
function documented(name: string): string {
  const row = LIMITS.split("\n").find((l) => l.startsWith("|") && l.includes(`\`${name}\``));
  expect(row, `docs/configuration.md, "Limits", has no row for ${name}`).toBeDefined();
  return (row ?? "").split("|")[2]?.trim() ?? "";
}

/** A Rate Limiting binding's per-minute limit in the root wrangler.toml. */
function perMinute(binding: string): string {
  const config = parse(readFileSync(join(ROOT, "wrangler.toml"), "utf8")) as {
    ratelimits: Array<{ name: string; simple: { limit: number; period: number } }>;
  };
  const entry = config.ratelimits.find((r) => r.name === binding);
  expect(entry?.simple.period).toBe(60);
  return `${entry?.simple.limit} a minute`;
}

describe('docs/configuration.md, "Limits"', () => {
  it.each([
    ["MAX_PLAN_OBJECTS", MAX_PLAN_OBJECTS],
    ["MAX_WAITERS_PER_REPOSITORY", MAX_WAITERS_PER_REPOSITORY],
    ["MAX_FEED_SOCKETS_PER_TOKEN", MAX_FEED_SOCKETS_PER_TOKEN],
    ["MAX_FEED_SOCKETS_PER_REPOSITORY", MAX_FEED_SOCKETS_PER_REPOSITORY],
    ["MAX_FEED_SOCKETS", MAX_FEED_SOCKETS],
  ])("%s is documented with its value", (name, value) => {
    expect(documented(name)).toBe(String(value));
  });

  it.each(["RUN_RATE_LIMITER", "READ_RATE_LIMITER"])(
    "%s is documented with wrangler.toml's limit",
    (binding) => {
      expect(documented(binding)).toBe(perMinute(binding));
    },
  );
});
