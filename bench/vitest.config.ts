// The in-runtime half of `npm run bench` (bench/run.mjs): timed loops inside workerd against the
// real lock objects, R2 and emulators. Not part of `npm test` (its include is test/**).
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      // The dev entry (dev/entry/index.ts): the production Worker plus the provider emulators.
      wrangler: { configPath: "./wrangler.dev.toml" },
      miniflare: {
        bindings: {
          // Test-only credential the Auth0 emulator is seeded with (test/helpers/plans.ts).
          AUTH0_CLIENT_SECRET: "test-only-auth0-secret-0123",
          // Knobs of the runtime half, passed in from the runner's environment.
          BENCH_REPS: process.env.BENCH_REPS ?? "3",
          BENCH_LATENCY_MS: process.env.BENCH_LATENCY_MS ?? "20",
          BENCH_SAMPLES: process.env.BENCH_SAMPLES ?? "40",
        },
      },
    }),
  ],
  test: {
    include: ["bench/runtime/**/*.bench.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
