/**
 * The JSON Schemas committed under schemas/, generated from the zod schemas with z.toJSONSchema
 * (draft 2020-12) so editors and CI can check a plan or a config var without the service.
 * `npm run build:schemas` writes them; test/repo/json-schemas.test.ts fails when they drift.
 * Refinements zod cannot express (unique ids, reserved secret names) are checked by
 * `sponson plan check` and `sponson config check`, not by the schemas.
 */
import { z } from "zod";
import { planSchema } from "../shared/schemas/plan";
import { JSON_VAR_NAMES, JSON_VARS } from "../workers/config/json-vars";
import { notifyConfigSchema } from "../workers/notify/notify-config";

const BASE = "https://raw.githubusercontent.com/<owner>/sponson-edge/v0/schemas/";

function document(file: string, title: string, schema: z.ZodType): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return { $schema, $id: `${BASE}${file}`, title, ...rest };
}

const varFile = (name: string) => `${name.toLowerCase().replaceAll("_", "-")}.schema.json`;

/** File name under schemas/ → its JSON text (two-space indent, trailing newline, as committed). */
export function jsonSchemaFiles(): Record<string, string> {
  const docs: Record<string, Record<string, unknown>> = {
    "plan.schema.json": document("plan.schema.json", "Sponson plan", planSchema),
  };
  for (const name of JSON_VAR_NAMES) docs[varFile(name)] = document(varFile(name), name, JSON_VARS[name]);
  // An operator var, checked apart from the config vars (workers/config/operator-vars-check.ts).
  docs[varFile("SPONSON_NOTIFY")] = document(varFile("SPONSON_NOTIFY"), "SPONSON_NOTIFY", notifyConfigSchema);
  return Object.fromEntries(
    Object.entries(docs).map(([file, doc]) => [file, `${JSON.stringify(doc, null, 2)}\n`]),
  );
}
