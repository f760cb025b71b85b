/**
 * Every var and Worker secret the Worker reads, with what it is and what happens when it is unset:
 * the one source of docs/configuration.md's tables (`npm run docs:config` writes them between
 * their markers). test/repo/config-docs.test.ts fails when a var the code reads is missing
 * here, when one listed here is read nowhere, and when the tables are not what this generates.
 * Defaults come from the constants the code uses, so a changed default changes the docs.
 *
 * Not imported by the Worker: its text stays out of the bundle.
 */
import { DEFAULT_LEASE_TTL_SECONDS, DEFAULT_WAIT_TIMEOUT_SECONDS } from "../../shared/lease-defaults";
import { DEFAULT_MAX_LIFETIME_SECONDS } from "../auth/token-lifetime";
import {
  DEAD_LETTER_QUEUE_NAME,
  DESTROY_QUEUE_NAME,
  NOTIFY_DEAD_LETTER_QUEUE_NAME,
  NOTIFY_QUEUE_NAME,
} from "../queue/queue-names";
import { DEFAULT_CLOSE_GRACE_SECONDS, DEFAULT_CLOSE_MAX_RESENDS } from "../sweep/close-grace";
import { DEFAULT_STREAM_KEEPALIVE_SECONDS } from "./config";
import { DEFAULT_ENVIRONMENTS, DEFAULT_GITHUB_ISSUER } from "./config-vars";
import { JSON_VAR_NAMES } from "./json-vars";

export interface CatalogueEntry {
  /** The var or secret name, or a description for the secrets the configuration names. */
  name: string;
  what: string;
  /** What the Worker does when it is unset (the default, or the refusal). */
  unset: string;
}

const days = (seconds: number) => `${seconds / 86_400} day${seconds === 86_400 ? "" : "s"}`;

/** JSON vars with a schema under schemas/ (npm run build:schemas), named as cli/json-schemas.ts names them. */
export const SCHEMA_VARS: readonly string[] = [...JSON_VAR_NAMES, "SPONSON_NOTIFY"];
export const schemaFile = (name: string) => `schemas/${name.toLowerCase().replaceAll("_", "-")}.schema.json`;

export const VARS: readonly CatalogueEntry[] = [
  {
    name: "SPONSON_AUDIENCE",
    what: "audience of GitHub OIDC tokens (the Action's `audience`, default the URL's origin)",
    unset: "every GitHub token refused",
  },
  {
    name: "SPONSON_REPOSITORIES",
    what: 'JSON: `[{ name, id, defaultBranch?, environments?, refEnvironments?, deploymentEnvironments?, jobWorkflowRef?, webhookSecret? }]` ("Repositories")',
    unset: "the service acts for no repository",
  },
  {
    name: "SPONSON_CONNECTIONS",
    what: 'JSON: the provider accounts (docs/adapters.md, "Connections"; keyless: docs/deploy.md, "Keyless connections")',
    unset: "plans name no connection",
  },
  {
    name: "SPONSON_POLICY",
    what: "JSON: the write policy (docs/security.md)",
    unset: "every write refused (fail closed)",
  },
  {
    name: "SPONSON_ENVIRONMENTS",
    what: 'JSON: where a closed pull request\'s scope is destroyed; per environment `staleAfterDays`, `evictStale` ("Environments")',
    unset: `\`${JSON.stringify(DEFAULT_ENVIRONMENTS)}\``,
  },
  {
    name: "SPONSON_PLATFORMS",
    what: 'JSON: Vercel projects and Netlify sites whose preview deploys register their URLs, each bound to one repository and environment ("Platform connections")',
    unset: "no platform door: every platform event is refused (404)",
  },
  {
    name: "SPONSON_WRITE_COMBINING",
    what: 'JSON: `{ "<environment>": false }` turns write combining off there',
    unset: "on everywhere",
  },
  {
    name: "SPONSON_ACCESS",
    what: 'JSON: people signing in through Cloudflare Access, mapped to roles (docs/security.md, "Cloudflare Access")',
    unset: "no Access sign-in (service tokens only)",
  },
  {
    name: "SPONSON_NOTIFY",
    what: 'JSON: where notifications go, Slack or a signed webhook (docs/operations.md, "Notifications")',
    unset: "queued and logged, sent nowhere",
  },
  {
    name: "SPONSON_PUBLIC_URL",
    what: 'the service\'s https origin: the issuer of the tokens keyless connections present (docs/deploy.md, "Keyless connections")',
    unset: "every keyless connection fails (config check says so)",
  },
  {
    name: "SPONSON_DESTROY_QUEUE",
    what: "the queue closed pull requests' destroys go through",
    unset: `\`${DESTROY_QUEUE_NAME}\``,
  },
  {
    name: "SPONSON_DEAD_LETTER_QUEUE",
    what: "where destroys that failed every retry are parked for the sweep",
    unset: `\`${DEAD_LETTER_QUEUE_NAME}\``,
  },
  { name: "SPONSON_NOTIFY_QUEUE", what: "the notifications' queue", unset: `\`${NOTIFY_QUEUE_NAME}\`` },
  {
    name: "SPONSON_NOTIFY_DEAD_LETTER_QUEUE",
    what: "where notifications that failed every retry are parked and logged",
    unset: `\`${NOTIFY_DEAD_LETTER_QUEUE_NAME}\``,
  },
  {
    name: "SPONSON_CLOSE_GRACE_SECONDS",
    what: "how long a closed scope may still own entries before the sweep re-sends its destroys",
    unset: String(DEFAULT_CLOSE_GRACE_SECONDS),
  },
  {
    name: "SPONSON_CLOSE_MAX_RESENDS",
    what: "how many times the sweep re-sends one closed scope's destroys",
    unset: String(DEFAULT_CLOSE_MAX_RESENDS),
  },
  {
    name: "SPONSON_RECENT_WRITES_SECONDS",
    what: "how long a parent lock remembers writes to a provider whose reads lag its writes",
    unset: "each op's own window",
  },
  {
    name: "SPONSON_RATE_LIMIT",
    what: "`on` / `off`: runs and previews (binding `RUN_RATE_LIMITER`), dashboard and lock reads (`READ_RATE_LIMITER`) per caller",
    unset: "on where the bindings are bound (off under `npm start`)",
  },
  {
    name: "SERVICE_TOKEN_MAX_LIFETIME_SECONDS",
    what: 'JSON: the longest service token per role, e.g. `{ "ci": 2592000 }`',
    unset: `admin ${days(DEFAULT_MAX_LIFETIME_SECONDS.admin)}, ci and viewer ${days(DEFAULT_MAX_LIFETIME_SECONDS.ci)}`,
  },
  {
    name: "LEASE_TTL_SECONDS",
    what: "lease lifetime without renewal",
    unset: String(DEFAULT_LEASE_TTL_SECONDS),
  },
  {
    name: "WAIT_TIMEOUT_SECONDS",
    what: "default wait for a held lock",
    unset: String(DEFAULT_WAIT_TIMEOUT_SECONDS),
  },
  {
    name: "STREAM_KEEPALIVE_SECONDS",
    what: "keep-alive interval of streamed runs",
    unset: String(DEFAULT_STREAM_KEEPALIVE_SECONDS),
  },
  {
    name: "GITHUB_OIDC_ISSUER",
    what: "GitHub Enterprise Server's issuer",
    unset: `\`${DEFAULT_GITHUB_ISSUER}\``,
  },
  {
    name: "EMULATORS",
    what: "local only (`npm start`, the tests); the production entry ignores it",
    unset: "—",
  },
];

export const SECRETS: readonly CatalogueEntry[] = [
  {
    name: "SERVICE_SIGNING_KEY",
    what: 'the Ed25519 key (or key ring) service tokens are signed with (`npm run keygen`; docs/deploy.md, "The signing key")',
    unset: "no service token (dashboard, admin, ci) is verified",
  },
  {
    name: "GITHUB_WEBHOOK_SECRET",
    what: 'the GitHub webhook\'s secret of the one repository when it names none of its own; with several repositories each needs its own `webhookSecret` (docs/security.md, "Webhook secrets")',
    unset: "every webhook it would sign refused: closed pull requests keep their entries",
  },
  {
    name: "FEDERATION_SIGNING_KEY",
    what: 'the RS256 key ring keyless connections\' tokens are signed with (`keygen -- --federation`; docs/deploy.md, "Keyless connections")',
    unset: "every keyless connection fails",
  },
  {
    name: "SERVICE_PUBLIC_KEY",
    what: "optional: verify-only public keys (JWK or JWKS), e.g. another deployment's",
    unset: "only the signing key's own",
  },
  {
    name: "each secret the configuration names",
    what: "a connection's `secrets`, a repository's `webhookSecret`, a platform connection's `webhookSecret` and `apiToken`, `SPONSON_NOTIFY`'s `slack.urlSecret` and `webhook.secret`",
    unset: "that connection, repository or target fails; config check names it",
  },
];
