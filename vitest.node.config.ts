// The CLI suite (test/cli/, with the local door's webhook path through `npm run webhook`): Node
// child processes against a `wrangler dev` instance that the global setup starts, so it cannot run
// inside workerd with the rest of the tests (vitest.config.ts).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/cli/**/*.test.ts"],
    globalSetup: ["test/cli/global-setup.ts"],
    environment: "node",
    // One wrangler dev instance and two cores: files run one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
