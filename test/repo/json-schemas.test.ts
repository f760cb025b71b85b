/**
 * schemas/ holds the JSON Schemas of the plan and of each JSON config var, generated from the zod
 * schemas (`npm run build:schemas`): the committed files are exactly what the sources generate,
 * and the examples validate against them, `$schema` key included.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { jsonSchemaFiles } from "../../cli/json-schemas";
import { planSchema } from "../../shared/schemas/plan";
import { notifyConfigSchema } from "../../workers/notify/notify-config";

const ROOT = join(import.meta.dirname, "..", "..");
const SCHEMAS = join(ROOT, "schemas");
const generated = jsonSchemaFiles();
const committed = (file: string) => readFileSync(join(SCHEMAS, file), "utf8");
const schema = (file: string) => JSON.parse(committed(file));

describe("the committed JSON Schemas", () => {
  it("are what the zod schemas generate, one file each, none left over (npm run build:schemas)", () => {
    expect(readdirSync(SCHEMAS).sort()).toEqual(Object.keys(generated).sort());
    for (const [file, text] of Object.entries(generated)) expect(committed(file), file).toBe(text);
  });

  it("cover the plan and every JSON var", () => {
    expect(Object.keys(generated).sort()).toEqual([
      "plan.schema.json",
      "sponson-access.schema.json",
      "sponson-connections.schema.json",
      "sponson-environments.schema.json",
      "sponson-notify.schema.json",
      "sponson-platforms.schema.json",
      "sponson-policy.schema.json",
      "sponson-repositories.schema.json",
      "sponson-write-combining.schema.json",
    ]);
  });

  it.for(["plan.json", "all-providers.plan.json", "shared.plan.json"])("examples/%s validates", (file) => {
    const plan = JSON.parse(readFileSync(join(ROOT, "examples", file), "utf8"));
    expect(new Validator(schema("plan.schema.json"), "2020-12").validate(plan).valid).toBe(true);
  });

  it("examples/connections.local.json validates as SPONSON_CONNECTIONS", () => {
    const connections = JSON.parse(readFileSync(join(ROOT, "examples", "connections.local.json"), "utf8"));
    const result = new Validator(schema("sponson-connections.schema.json"), "2020-12").validate(connections);
    expect(result.errors).toEqual([]);
  });

  it("SPONSON_NOTIFY's schema takes docs/operations.md's example and refuses a misspelt kind, as the service does", () => {
    const example = {
      slack: { urlSecret: "SLACK_WEBHOOK_URL" },
      webhook: { url: "https://ops.example.com/sponson", secret: "NOTIFY_WEBHOOK_SECRET" },
      kinds: { "orphan-found": false, "list-near-capacity": false },
    };
    const validator = new Validator(schema("sponson-notify.schema.json"), "2020-12");
    expect(validator.validate(example).errors).toEqual([]);
    expect(notifyConfigSchema.safeParse(example).success).toBe(true);
    const misspelt = { kinds: { "orphans-found": false } };
    expect(validator.validate(misspelt).valid).toBe(false);
    expect(notifyConfigSchema.safeParse(misspelt).success).toBe(false);
  });

  it("a plan naming its schema with `$schema` is a valid plan, for the schema and for the service", () => {
    const plan = { $schema: "../schemas/plan.schema.json", version: 2, lines: [] };
    expect(new Validator(schema("plan.schema.json"), "2020-12").validate(plan).valid).toBe(true);
    expect(planSchema.safeParse(plan).success).toBe(true);
  });

  it("a misspelt key is refused by the schema, as by the service", () => {
    const plan = { version: 2, lines: [], line: [] };
    expect(new Validator(schema("plan.schema.json"), "2020-12").validate(plan).valid).toBe(false);
    expect(planSchema.safeParse(plan).success).toBe(false);
  });
});
