/** Configuration variables for the config report's tests: repositories and connections as JSON. */

/** An Auth0 connection of the preview environment, with `extra` fields (repositories, capacity…). */
export const auth0 = (extra: Record<string, unknown> = {}) => ({
  type: "auth0",
  environments: ["preview"],
  config: { domain: "acme.us.auth0.com", clientId: "m2m" },
  secrets: { clientSecret: "AUTH0_CLIENT_SECRET" },
  ...extra,
});

/** `SPONSON_REPOSITORIES` and `SPONSON_CONNECTIONS` as the Worker reads them. */
export const vars = (repositories: object[], connections: Record<string, object>) => ({
  SPONSON_REPOSITORIES: JSON.stringify(repositories),
  SPONSON_CONNECTIONS: JSON.stringify(connections),
});
