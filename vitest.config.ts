import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";

// Service-token key for tests only, fresh every run (test/helpers/tokens.ts signs with it).
const testServiceKey = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
  "sign",
  "verify",
])) as CryptoKeyPair;
const testServiceJwk = await crypto.subtle.exportKey("jwk", testServiceKey.privateKey);
// Federation key for tests only (the service as an OIDC issuer, docs/design.md "Signing keys"):
// an RS256 ring with one current key and one retired kid.
const testFederationKey = (await crypto.subtle.generateKey(
  {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  },
  true,
  ["sign", "verify"],
)) as CryptoKeyPair;
const testFederationRing = {
  keys: [
    { kid: "test-federation-retired", status: "retired" },
    {
      ...(await crypto.subtle.exportKey("jwk", testFederationKey.privateKey)),
      kid: "test-federation-current",
      status: "current",
    },
  ],
};

const NOT_RUNTIME = [...configDefaults.exclude, "test/cli/**", "test/repo/**", "test/sdk/**"];

/**
 * Files that read or fill what the whole service holds run each in a runtime of its own, started
 * empty, as every file did before: the dashboard's pages, routes and sweeps that list every lock,
 * receipt or orphan (their answers and their cost depend on what other files left behind), checks
 * that scan all storage, and the property suites, which leave thousands of scopes behind.
 * Measured: these failed or slowed many times over in the shared runtime; nothing else did.
 */
const FRESH_RUNTIME = [
  "test/dashboard/**/*.test.ts",
  "test/property/**/*.test.ts",
  "test/fuzz/*.test.ts",
  "test/queue/sweep*.test.ts",
  "test/queue/dead-letters.test.ts",
  "test/routes/locks.test.ts",
  "test/routes/lock-holds.test.ts",
  "test/routes/config-status.test.ts",
  "test/locks/lock-keys.test.ts",
  "test/receipts/list-scopes.test.ts",
  "test/receipts/corrupt-receipts.test.ts",
  "test/reliability/settled-intents.test.ts",
  "test/journeys/ownership/orphans.test.ts",
  "test/journeys/ownership/hand-added.test.ts",
  "test/auth/encoded-paths.test.ts",
  "test/engine/secrets.test.ts",
  "test/engine/shared-token-secrets.test.ts",
  "test/routes/lock-views-young.test.ts",
  "test/routes/lock-index-cost.test.ts",
  "test/journeys/ownership/lagging-first-look.test.ts",
  "test/journeys/ownership/orphan-removal-fencing.test.ts",
  "test/journeys/slack-orphan-text.test.ts",
];

/**
 * `npm run test:fast` (`--mode fast`): the property suites draw a few histories each instead of
 * the default (docs/development.md, "The suites"); everything else is the same suite.
 */
const FAST_PROPERTY_RUNS = {
  VITE_PROPERTY_RUNS: "6",
  VITE_SHARED_RUNS: "2",
  SPONSON_PROPERTY_RUNS: "2",
};

export default defineConfig(({ mode }) => {
  // Vite reads envPrefix variables from the process after this function returns; a value the
  // caller set wins (a deep run: SPONSON_PROPERTY_RUNS=50 npm run test:fast).
  if (mode === "fast")
    for (const [name, value] of Object.entries(FAST_PROPERTY_RUNS)) process.env[name] ??= value;
  return {
    // Property-suite knobs (runs, seeds, features) reach the test isolate as import.meta.env.
    envPrefix: ["VITE_", "SPONSON_PROPERTY_"],
    plugins: [
      cloudflareTest({
        // The dev entry (dev/entry/index.ts): the production Worker plus the provider emulators.
        wrangler: { configPath: "./wrangler.dev.toml" },
        miniflare: {
          bindings: {
            SERVICE_SIGNING_KEY: JSON.stringify(testServiceJwk),
            FEDERATION_SIGNING_KEY: JSON.stringify(testFederationRing),
            // The issuer the emulated clouds trust; they reach it through the Worker's own entry.
            SPONSON_PUBLIC_URL: "https://sponson.test",
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
      // The CLI suite, the repository checks (vitest.node.config.ts) and the vendor-SDK suite
      // (vitest.sdk.config.ts) run under Node; see NOT_RUNTIME.
      projects: [
        {
          extends: true,
          test: {
            name: "runtime",
            include: ["test/**/*.test.ts"],
            exclude: [...NOT_RUNTIME, ...FRESH_RUNTIME],
            // One runtime and one module graph for all these files: isolating each file started a
            // new workerd and loaded the whole Worker again, about 6 s a file on two cores. Every
            // file makes its own tenants, scopes and locks (freshAuth0Domain, freshPr), so what an
            // earlier file left behind is never one of them.
            isolate: false,
          },
        },
        { extends: true, test: { name: "fresh", include: FRESH_RUNTIME, exclude: NOT_RUNTIME } },
      ],
      // Real queues deliver to the real consumer in the background, and it logs what it did; that
      // output may arrive after its test file ended, which the console interceptor reports as an
      // error. Console output goes straight to the terminal instead.
      disableConsoleIntercept: true,
      // Two test files at a time even on two cores: vitest's default (one fewer than the cores)
      // ran the suite one file after another there, with a core idle while each file waited on
      // its workerd (measured: user + sys CPU was 12 of 12.6 wall minutes).
      maxWorkers: Math.max(2, availableParallelism()),
      // A hang guard, not a speed assertion: the concurrency journeys run many runs at once on two
      // cores (two test files at a time, below), and vitest's 5 s default fails them when the
      // machine is busy.
      testTimeout: 60_000,
      // The same background consumers may still be running when their file's isolate closes; vitest
      // then reports "Closing rpc while … was pending" (EnvironmentTeardownError). That is teardown
      // of work no test awaits, not a failure: it is ignored, and every other unhandled error still
      // fails the run.
      onUnhandledError: (error) => (error.name === "EnvironmentTeardownError" ? false : undefined),
    },
  };
});
