import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // Tests talk to the provider emulators; production config never sets this.
      miniflare: {
        bindings: {
          EMULATORS: "on",
          // Test-only credential the Auth0 emulator is seeded with (test/helpers/plans.ts).
          AUTH0_CLIENT_SECRET: "test-only-auth0-secret-0123",
          // Test-only values, not secrets: the webhook tests sign GitHub's example payloads with it.
          GITHUB_WEBHOOK_SECRET: "test-only-github-webhook-secret",
          // The repository of @octokit/webhooks-examples' payloads, and two destroy environments.
          SPONSON_REPOSITORIES: JSON.stringify([{ name: "Codertocat/Hello-World", id: 186853002 }]),
          SPONSON_ENVIRONMENTS: JSON.stringify(["preview", "staging"]),
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
  },
});
