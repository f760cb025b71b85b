/**
 * What the IAM OAuth clients emulator keeps (iam.googleapis.com). Storage keys:
 *   project:<id>                       → IamProject (who may read or edit its OAuth clients)
 *   client:<project>/<location>/<id>   → IamOAuthClient (the resource as the API returns it)
 *   sa:<email>                         → GoogleServiceAccount, for self-signed JWT bearers
 *   demo:provisioned                   → true (./demo.ts)
 */

export interface IamProject {
  members: Record<string, "editor" | "viewer">;
}

/** `projects.locations.oauthClients` (IAM API v1 reference): the fields it has. */
export interface IamOAuthClient {
  name: string;
  state: "ACTIVE" | "DELETED";
  disabled: boolean;
  clientId: string;
  displayName?: string;
  description?: string;
  clientType: "PUBLIC_CLIENT" | "CONFIDENTIAL_CLIENT";
  allowedGrantTypes: string[];
  allowedScopes: string[];
  allowedRedirectUris?: string[];
  expireTime?: string;
}

export const iamKeys = {
  project: (id: string) => `project:${id}`,
  client: (project: string, location: string, id: string) => `client:${project}/${location}/${id}`,
} as const;

/** A confidential web client as the console creates one, with `allowedRedirectUris`. */
export function iamOAuthClient(
  project: string,
  id: string,
  allowedRedirectUris: string[],
  location = "global",
): IamOAuthClient {
  return {
    name: `projects/${project}/locations/${location}/oauthClients/${id}`,
    state: "ACTIVE",
    disabled: false,
    clientId: `${id}-${project}`.slice(0, 60),
    displayName: "Previews",
    description: "Sign-in for preview environments",
    clientType: "CONFIDENTIAL_CLIENT",
    allowedGrantTypes: ["AUTHORIZATION_CODE_GRANT", "REFRESH_TOKEN_GRANT"],
    allowedScopes: ["https://www.googleapis.com/auth/cloud-platform", "openid", "email"],
    allowedRedirectUris,
  };
}
