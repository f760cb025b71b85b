// Bundles the CLI (cli/index.ts and the shared/ schemas it imports) into dist/sponson.mjs with
// esbuild. Bundled, not run as TypeScript: shared/ uses extensionless imports, which Node's type
// stripping cannot resolve, and a bundle starts fast under any Node >= 20.
// Runs on `npm ci` / `npm install` (the `prepare` script), from the node-side test setup, and from
// bin/sponson.mjs when the bundle is missing.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const BUNDLE = join(root, "dist", "sponson.mjs");

/** `outfile`: dist/sponson.mjs, or the publishable package's copy (packages/cli, its prepack). */
export async function buildCli(outfile = BUNDLE) {
  const { build } = await import("esbuild");
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  await build({
    entryPoints: [join(root, "cli", "index.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minifySyntax: true,
    minifyWhitespace: true,
    keepNames: true,
    define: {
      SPONSON_VERSION: JSON.stringify(version),
      // What `config check` compares a deployment's wrangler config with (cli/commands/wrangler-needs.ts).
      SPONSON_WRANGLER_TOML: JSON.stringify(readFileSync(join(root, "wrangler.toml"), "utf8")),
    },
    logLevel: "warning",
  });
  return outfile;
}

const USAGE = `Usage: npm run build:cli [-- --out <file>]   (also run by \`npm ci\` as the \`prepare\` script)

Bundles the CLI (cli/index.ts) into dist/sponson.mjs with esbuild; bin/sponson.mjs runs it.
  --out <file>  write the bundle there instead (packages/cli's prepack: the published package)
`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--help") || process.argv.includes("-h")) process.stdout.write(USAGE);
  else {
    const at = process.argv.indexOf("--out");
    await buildCli(at === -1 ? BUNDLE : resolve(process.argv[at + 1] ?? BUNDLE));
  }
}
