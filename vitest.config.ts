import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // Tests talk to the provider emulators; production config never sets this.
      miniflare: { bindings: { EMULATORS: "on" } },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
  },
});
