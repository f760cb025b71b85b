// The Node-side suite: the CLI (test/cli/, child processes against a `wrangler dev` instance that
// the global setup starts, including the local door's webhook path through `npm run webhook`) and
// checks of the repository itself (test/repo/: npm scripts, the two wrangler configs, the
// production bundle). Neither can run inside workerd (vitest.config.ts).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/cli/**/*.test.ts", "test/repo/**/*.test.ts"],
    globalSetup: ["test/cli/global-setup.ts"],
    environment: "node",
    // One wrangler dev instance and two cores: files run one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
