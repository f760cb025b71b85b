// The vendor-SDK fidelity suite (test/sdk/): each provider's official SDK, pinned in package.json,
// drives its emulator over HTTP. Plain Node against the emulators-only Worker under `wrangler dev`
// (dev/emulators/server.ts), started once by the global setup.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/sdk/**/*.test.ts"],
    globalSetup: ["test/sdk/global-setup.ts"],
    environment: "node",
    // One wrangler dev instance and two cores: files run one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
