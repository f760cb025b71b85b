/** Plans for tests: one Auth0 tenant (the emulator), entries per scope on one application. */
import type { Plan } from "../../shared/schemas/plan";
import type { ConnectionRepositories } from "../../workers/connections/connection-schema";
import { registerConnection } from "./connections";
import { seedAuth0Tenant } from "./emulators";

export const TEST_M2M = { clientId: "sponson-test-m2m", clientSecret: "test-only-auth0-secret-0123" };
export const APP_CLIENT = "preview-app";

/** The Worker secret the test connections name (vitest.config.ts binds its value). */
export const SECRET_NAME = "AUTH0_CLIENT_SECRET";

/**
 * The tenant whose connection the Worker's own bindings configure (vitest.config.ts): runs made by
 * the queue consumer or the cron entry read the Worker's env, not the connections a test registers.
 * One test file at a time may use it.
 */
export const BACKGROUND_DOMAIN = "background.us.auth0.com";

/**
 * The connection to the emulated tenant `domain` (registered as service configuration), naming
 * `repositories` when a test configures several (docs/design.md, "Objects belong to repositories").
 */
export function auth0Connection(domain: string, repositories?: ConnectionRepositories): string {
  return registerConnection(`auth0-${domain}`, {
    type: "auth0",
    config: { domain, clientId: TEST_M2M.clientId },
    secrets: { clientSecret: SECRET_NAME },
    ...(repositories === undefined ? {} : { repositories }),
  });
}

export async function seedTenant(domain: string, existing: { callbacks?: string[] } = {}): Promise<void> {
  await seedAuth0Tenant(domain, {
    m2m: TEST_M2M,
    clients: {
      [APP_CLIENT]: {
        callbacks: existing.callbacks ?? [],
        allowed_logout_urls: [],
        web_origins: [],
        allowed_origins: [],
      },
    },
  });
}

export function auth0Plan(
  domain: string,
  lines: Array<{ id: string; op: string; url: string }>,
  repositories?: ConnectionRepositories,
): Plan {
  const connection = auth0Connection(domain, repositories);
  return {
    version: 2,
    lines: lines.map((l) => ({
      id: l.id,
      op: l.op,
      connection,
      params: { client: APP_CLIENT, url: l.url },
    })),
  };
}

/** Three entries on one application, each URL naming the scope. */
export function previewPlan(domain: string, repositories?: ConnectionRepositories): Plan {
  return auth0Plan(
    domain,
    [
      { id: "callback", op: "auth0.callbackUrl", url: "https://{scope}.preview.example.com/callback" },
      { id: "logout", op: "auth0.logoutUrl", url: "https://{scope}.preview.example.com/" },
      { id: "origin", op: "auth0.webOrigin", url: "https://{scope}.preview.example.com" },
    ],
    repositories,
  );
}
