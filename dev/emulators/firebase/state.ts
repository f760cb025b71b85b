/**
 * What the Identity Platform emulator keeps (identitytoolkit.googleapis.com). Storage keys:
 *   project:<id>           → IdentityProject
 *   revokedBefore:<email>  → epoch ms (tokens of that account issued earlier are refused)
 *   sa:<email>             → GoogleServiceAccount, for self-signed JWT bearers (../google/state.ts)
 *   demo:provisioned       → true (./demo.ts)
 */

export interface IdentityProject {
  /** Service accounts and their role on the project. */
  members: Record<string, "editor" | "viewer">;
  /** The Config resource; absent when Identity Platform was never set up on the project. */
  config?: { authorizedDomains: string[]; [field: string]: unknown };
}

export const identityKeys = {
  project: (id: string) => `project:${id}`,
  revokedBefore: (email: string) => `revokedBefore:${email}`,
} as const;

export function configResource(project: string, config: NonNullable<IdentityProject["config"]>) {
  return { name: `projects/${project}/config`, ...config };
}
