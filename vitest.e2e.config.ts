import { defineConfig } from "vitest/config";

// Browser tests (test/e2e/): plain Node, a real `wrangler dev` and the Chromium shipped in the
// @sparticuz/chromium npm package (test/e2e/bundled-chromium.ts). They cannot run inside workerd
// like the rest of the suite, hence their own config (`npm test` runs both).
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.ts"],
    environment: "node",
    pool: "forks",
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
