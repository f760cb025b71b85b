/**
 * wrangler.toml (production) and wrangler.dev.toml (the dev entry: npm start, tests, bench) are
 * one Worker: they differ only in the entry and the emulator parts, so what the tests run is what
 * deploys. Production binds no emulator, and its migration v4 deletes the emulator class for good.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

const ROOT = join(import.meta.dirname, "..", "..");

/** The parts compared field by field; the rest is compared whole. */
interface Config {
  name?: string;
  main?: string;
  vars: Record<string, unknown>;
  durable_objects: { bindings: Array<{ name: string; class_name: string }> };
  migrations: Array<{ tag: string; deleted_classes?: string[] }>;
  [field: string]: unknown;
}
const read = (file: string) => unstable_readConfig({ config: join(ROOT, file) }) as unknown as Config;

const prod = read("wrangler.toml");
const dev = read("wrangler.dev.toml");

describe("the production and dev wrangler configs", () => {
  it("production: the production entry, no emulator binding or var, the class deleted", () => {
    expect(prod.main).toBe(join(ROOT, "workers", "index.ts"));
    expect(prod.durable_objects.bindings.map((b) => b.class_name)).not.toContain("ProviderEmulator");
    expect(prod.vars).not.toHaveProperty("EMULATORS");
    expect(prod.migrations.find((m) => m.tag === "v4")).toEqual({
      tag: "v4",
      deleted_classes: ["ProviderEmulator"],
    });
    // No migration after the deletion brings the emulator class back.
    const after = prod.migrations.slice(prod.migrations.findIndex((m) => m.tag === "v4") + 1);
    expect(JSON.stringify(after)).not.toContain("ProviderEmulator");
  });

  it("dev: the dev entry with the emulator binding, and production's migrations but the deletion", () => {
    expect(dev.main).toBe(join(ROOT, "dev", "entry", "index.ts"));
    const emulator = { name: "PROVIDER_EMULATOR", class_name: "ProviderEmulator" };
    expect(dev.durable_objects.bindings).toContainEqual(emulator);
    expect(dev.durable_objects.bindings.filter((b) => b.name !== emulator.name)).toEqual(
      prod.durable_objects.bindings,
    );
    expect(dev.vars).toEqual({ ...prod.vars, EMULATORS: "on" });
    // Locally a migration only picks the storage backend; the emulators need SQLite.
    expect(dev.migrations).toEqual(
      prod.migrations.filter((m) => !m.deleted_classes?.includes("ProviderEmulator")),
    );
    // The same name keeps local state (.wrangler/state) of the same objects across both files.
    expect(dev.name).toBe(prod.name);
  });

  it("everything else is the same in both", () => {
    const differ = new Set(["configPath", "userConfigPath", "main", "vars", "durable_objects", "migrations"]);
    const rest = (c: Config) => Object.fromEntries(Object.entries(c).filter(([k]) => !differ.has(k)));
    expect(rest(dev)).toEqual(rest(prod));
    // Control: the comparison sees a difference where there is one.
    expect(rest({ ...dev, compatibility_date: "2000-01-01" })).not.toEqual(rest(prod));
  });
});
