import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";

// Service-token key for tests only, fresh every run (test/helpers/tokens.ts signs with it).
const testServiceKey = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
  "sign",
  "verify",
])) as CryptoKeyPair;
const testServiceJwk = await crypto.subtle.exportKey("jwk", testServiceKey.privateKey);

export default defineConfig({
  // Property-suite knobs (runs, seeds, features) reach the test isolate as import.meta.env.
  envPrefix: ["VITE_", "SPONSON_PROPERTY_"],
  plugins: [
    cloudflareTest({
      // The dev entry (dev/entry/index.ts): the production Worker plus the provider emulators.
      wrangler: { configPath: "./wrangler.dev.toml" },
      miniflare: {
        bindings: {
          SERVICE_SIGNING_KEY: JSON.stringify(testServiceJwk),
          // Test-only credential the Auth0 emulator is seeded with (test/helpers/plans.ts).
          AUTH0_CLIENT_SECRET: "test-only-auth0-secret-0123",
          // Test-only values, not secrets: the webhook tests sign GitHub's example payloads with it.
          GITHUB_WEBHOOK_SECRET: "test-only-github-webhook-secret",
          // The repository of @octokit/webhooks-examples' payloads, and two destroy environments.
          SPONSON_REPOSITORIES: JSON.stringify([{ name: "Codertocat/Hello-World", id: 186853002 }]),
          // The one connection the Worker's own background entries (queue consumer, cron) know:
          // tests whose runs happen there use its tenant (test/helpers/plans.ts, BACKGROUND_DOMAIN).
          SPONSON_CONNECTIONS: JSON.stringify({
            "auth0-background.us.auth0.com": {
              type: "auth0",
              environments: ["preview", "staging"],
              config: { domain: "background.us.auth0.com", clientId: "sponson-test-m2m" },
              secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
            },
          }),
          SPONSON_ENVIRONMENTS: JSON.stringify(["preview", "staging"]),
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    // The CLI suite, the repository checks (vitest.node.config.ts) and the vendor-SDK suite
    // (vitest.sdk.config.ts) run under Node.
    exclude: [...configDefaults.exclude, "test/cli/**", "test/repo/**", "test/sdk/**"],
    // Real queues deliver to the real consumer in the background, and it logs what it did; that
    // output may arrive after its test file ended, which the console interceptor reports as an
    // error. Console output goes straight to the terminal instead.
    disableConsoleIntercept: true,
    // A hang guard, not a speed assertion: the concurrency journeys run many runs at once on two
    // cores, and vitest's 5 s default fails them when the machine is busy.
    testTimeout: 30_000,
    // The same background consumers may still be running when their file's isolate closes; vitest
    // then reports "Closing rpc while … was pending" (EnvironmentTeardownError). That is teardown
    // of work no test awaits, not a failure: it is ignored, and every other unhandled error still
    // fails the run.
    onUnhandledError: (error) => (error.name === "EnvironmentTeardownError" ? false : undefined),
  },
});
