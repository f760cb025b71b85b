import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";

// Service-token key for tests only, fresh every run (test/helpers/tokens.ts signs with it).
const testServiceKey = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
  "sign",
  "verify",
])) as CryptoKeyPair;
const testServiceJwk = await crypto.subtle.exportKey("jwk", testServiceKey.privateKey);

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      // Tests talk to the provider emulators; production config never sets this.
      miniflare: {
        bindings: {
          EMULATORS: "on",
          SERVICE_SIGNING_KEY: JSON.stringify(testServiceJwk),
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
    // The CLI suite (vitest.node.config.ts) and the vendor-SDK suite (vitest.sdk.config.ts) run
    // under Node against wrangler dev.
    exclude: [...configDefaults.exclude, "test/cli/**", "test/sdk/**"],
    // Real queues deliver to the real consumer in the background, and it logs what it did; that
    // output may arrive after its test file ended, which the console interceptor reports as an
    // error. Console output goes straight to the terminal instead.
    disableConsoleIntercept: true,
  },
});
