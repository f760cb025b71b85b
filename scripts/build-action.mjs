// Bundles the GitHub Action (action/index.ts, with the CLI and @actions/core, @octokit/rest) into
// dist/action.js, which is committed: a job using the Action runs it as is, installing nothing.
// test/repo/action-bundle.test.ts rebuilds it in memory and fails when the committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const ACTION_BUNDLE = join(root, "dist", "action.js");

/** The bundle's text; the same sources and lock file always give the same bytes. */
export async function actionBundle() {
  const { build } = await import("esbuild");
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const out = await build({
    entryPoints: [join(root, "action", "index.ts")],
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    target: "node24",
    minifySyntax: true,
    minifyWhitespace: true,
    keepNames: true,
    legalComments: "eof",
    // Bundled CommonJS dependencies still call require() for Node's own modules.
    banner: {
      js: 'import { createRequire as __sponsonRequire } from "node:module"; const require = __sponsonRequire(import.meta.url);',
    },
    define: {
      SPONSON_VERSION: JSON.stringify(version),
      // `config check`'s source of truth, as in the CLI's own bundle (cli/build.mjs).
      SPONSON_WRANGLER_TOML: JSON.stringify(readFileSync(join(root, "wrangler.toml"), "utf8")),
    },
    logLevel: "warning",
    absWorkingDir: root,
    // Module paths land in the bundle's text: a worktree whose node_modules is a link to another
    // checkout must still name them node_modules/…, or the committed bundle differs by checkout.
    preserveSymlinks: true,
  });
  return out.outputFiles[0].text;
}

export async function buildAction() {
  writeFileSync(ACTION_BUNDLE, await actionBundle());
  return ACTION_BUNDLE;
}

const USAGE = `Usage: npm run build:action

Bundles the GitHub Action (action/index.ts) into dist/action.js, which is committed.
Takes no options.
`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--help") || process.argv.includes("-h")) process.stdout.write(USAGE);
  else process.stdout.write(`${await buildAction()}\n`);
}
