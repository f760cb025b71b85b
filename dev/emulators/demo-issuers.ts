/**
 * The issuers the demo states trust for the federated example connections (docs/design.md
 * "Federated connections"). A cloud trusts one issuer per pool provider, OIDC provider or federated
 * credential; the demo trusts two so that examples/all-providers.plan.json runs keyless both under
 * `npm start` (SPONSON_PUBLIC_URL=https://sponson.localhost) and in the runtime tests
 * (SPONSON_PUBLIC_URL=https://sponson.test, vitest.config.ts). Dev-only: never in production code.
 */
export const DEMO_ISSUERS = ["https://sponson.localhost", "https://sponson.test"] as const;

/** The subject the service mints for a connection (`sponson:connection:<name>`). */
export const demoSubject = (connection: string) => `sponson:connection:${connection}`;
