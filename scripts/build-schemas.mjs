// Writes the JSON Schemas under schemas/ (plan and JSON config vars) from the zod schemas
// (cli/json-schemas.ts), bundled with esbuild in memory because the sources use extensionless
// imports Node's type stripping cannot resolve. test/repo/json-schemas.test.ts checks that the
// committed files are what this writes.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SCHEMAS_DIR = join(root, "schemas");

export async function buildSchemas() {
  const { build } = await import("esbuild");
  const out = await build({
    entryPoints: [join(root, "cli", "json-schemas.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    write: false,
    logLevel: "warning",
  });
  const code = out.outputFiles[0].text;
  const { jsonSchemaFiles } = await import(
    `data:text/javascript;base64,${Buffer.from(code).toString("base64")}`
  );
  const files = jsonSchemaFiles();
  mkdirSync(SCHEMAS_DIR, { recursive: true });
  for (const old of readdirSync(SCHEMAS_DIR))
    if (old.endsWith(".schema.json")) rmSync(join(SCHEMAS_DIR, old));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(SCHEMAS_DIR, file), text);
  return Object.keys(files);
}

const USAGE = `Usage: npm run build:schemas

Writes schemas/*.schema.json (the plan, each JSON config var and SPONSON_NOTIFY) from the zod schemas.
Takes no options.
`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--help") || process.argv.includes("-h")) process.stdout.write(USAGE);
  else for (const file of await buildSchemas()) process.stdout.write(`schemas/${file}\n`);
}
