#!/usr/bin/env node
// The package's `sponson` bin. Runs the bundled CLI in dist/ (built by `npm ci` through the
// `prepare` script); builds it first when it is missing, e.g. after `git clean`.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const bundle = fileURLToPath(new URL("../dist/sponson.mjs", import.meta.url));
if (!existsSync(bundle)) {
  const { buildCli } = await import("../cli/build.mjs");
  await buildCli();
}
await import(pathToFileURL(bundle).href);
