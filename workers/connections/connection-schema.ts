/**
 * Connections (docs/design.md, "Plans and connections"): the provider accounts the service may use,
 * defined in service configuration only (`SPONSON_CONNECTIONS`). A connection fixes its provider
 * type, its non-secret settings (hosts, account and project ids), which Worker secret fills each
 * credential field, and the environments allowed to use it. A plan line only names one.
 */
import { z } from "zod";
import { isValidEnvironment } from "../../shared/lock-keys";
import { budgetRateSchema } from "../../shared/rpc/budget-bucket";
import { repositoryNameSchema } from "../../shared/schemas/repository";
import { patternProblem } from "../policy/glob";
import { capacityEntrySchema } from "./list-limits";

/** A parent identity pattern, as the write policy's (workers/policy/glob.ts: `*` within one segment). */
const parentPatternSchema = z
  .string()
  .max(512)
  .superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/**
 * Which repositories' runs may write through a connection (docs/design.md, "Objects belong to
 * repositories"): their `owner/name`s, or `"*"` to share it on purpose.
 */
export const connectionRepositoriesSchema = z.union([
  z.literal("*"),
  z
    .array(repositoryNameSchema)
    .min(1)
    .max(100)
    .refine(
      (names) => new Set(names.map((n) => n.toLowerCase())).size === names.length,
      "each repository once",
    ),
]);
export type ConnectionRepositories = z.infer<typeof connectionRepositoriesSchema>;

export const connectionNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

const opNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]{0,31}\.[A-Za-z][A-Za-z0-9]{0,63}$/, "an op name, e.g. auth0.webOrigin");

const fieldSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, "a config field name, e.g. clientSecret");

/** A Worker secret's name, e.g. AUTH0_CLIENT_SECRET (`wrangler secret put AUTH0_CLIENT_SECRET`). */
const secretNameSchema = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, "a Worker secret name, e.g. AUTH0_CLIENT_SECRET");

/**
 * The service's own secrets and settings: no connection may be given one of them, so a provider
 * can never receive the signing key, the webhook secret or anything else the service keeps.
 */
const RESERVED_SECRET_PREFIXES = ["SERVICE_", "GITHUB_", "SPONSON_", "DASHBOARD_", "FEDERATION_"];
const RESERVED_SECRET_NAMES = new Set([
  "LEASE_TTL_SECONDS",
  "WAIT_TIMEOUT_SECONDS",
  "EMULATORS",
  "LEASE_LOCK",
  "LOCK_FEED",
  "SCOPE_STATE",
  "RECEIPTS",
  "DESTROY_QUEUE",
  "RUN_RATE_LIMITER",
  "READ_RATE_LIMITER",
  "NOTIFY_QUEUE",
  "RUN_ANALYTICS",
  "TOKEN_BROKER",
  "BUDGET_BUCKET",
]);

export function isReservedSecretName(name: string): boolean {
  return RESERVED_SECRET_NAMES.has(name) || RESERVED_SECRET_PREFIXES.some((p) => name.startsWith(p));
}

/** Non-secret settings: what `lockOn` and the adapter read besides the credentials. */
export type ConnectionSettings = { type: string } & Record<string, string | number | boolean>;

export const connectionSchema = z
  .strictObject({
    type: z.string().regex(/^[a-z][a-z0-9]{0,31}$/),
    /** Environments whose runs may use this connection; any other is refused before any request. */
    environments: z
      .array(z.string().refine(isValidEnvironment, "not a valid environment name"))
      .min(1)
      .max(50),
    /**
     * The repositories whose runs may write through this connection, or `"*"` for every configured
     * one. Absent: any, while one repository is configured; none once several are.
     */
    repositories: connectionRepositoriesSchema.optional(),
    /**
     * The provider objects (parent identity patterns) this connection may write; absent: any the
     * write policy admits. Names which objects are whose when repositories share a tenant.
     */
    parents: z.array(parentPatternSchema).min(1).max(200).optional(),
    /** Non-secret settings of the adapter's config (host names, account and project ids). */
    config: z.record(fieldSchema, z.union([z.string().max(2_000), z.number(), z.boolean()])).default({}),
    /** Credential field → the Worker secret that fills it. */
    secrets: z.record(fieldSchema, secretNameSchema).default({}),
    /**
     * Keyless credentials (docs/design.md, "Federated connections"): the cloud trusts the service's
     * own tokens for this connection's subject. Non-secret ids only; each adapter checks its fields.
     */
    federated: z.record(fieldSchema, z.string().min(1).max(2_000)).optional(),
    /** Auth0 and Okta: client credentials with a client assertion signed by the federation key. */
    privateKeyJwt: z.record(fieldSchema, z.string().min(1).max(2_000)).optional(),
    /**
     * Op → the most entries its list may hold on this connection's objects (a number: lowers the
     * provider's documented cap or sets one where none is documented; docs/design.md, "Lists at
     * their cap"), or `{ maxEntries?, maxEntriesPerScope?, maxEntriesPerRepository? }` with the
     * shares one scope and one repository may hold ("A share of each list"; list-limits.ts).
     */
    capacity: z.record(opNameSchema, capacityEntrySchema).optional(),
    /**
     * The provider tenant's management-API budget, `{ burst, perSecond }`, in place of the one its
     * adapter documents (docs/design.md, "Write budgets"): a larger plan's, or a share of it.
     */
    budget: budgetRateSchema.optional(),
  })
  .superRefine((connection, ctx) => {
    for (const [field, secret] of Object.entries(connection.secrets)) {
      if (isReservedSecretName(secret)) {
        ctx.addIssue({
          code: "custom",
          path: ["secrets", field],
          message: `${secret} is one of the service's own secrets or settings; a connection may not use it`,
        });
      }
      if (field in connection.config) {
        ctx.addIssue({
          code: "custom",
          path: ["secrets", field],
          message: `"${field}" is given both in config and in secrets`,
        });
      }
    }
    if (connection.federated && connection.privateKeyJwt) {
      ctx.addIssue({
        code: "custom",
        path: ["privateKeyJwt"],
        message: "federated or privateKeyJwt, not both",
      });
    }
    if ("type" in connection.config) {
      ctx.addIssue({ code: "custom", path: ["config", "type"], message: "the type is set once, at the top" });
    }
  });
export type Connection = z.infer<typeof connectionSchema>;

export const connectionsSchema = z.record(connectionNameSchema, connectionSchema);
export type ConnectionsDocument = z.infer<typeof connectionsSchema>;

/** The settings `lockOn` sees: the connection's type and non-secret config, never a secret. */
export function connectionSettings(connection: Connection): ConnectionSettings {
  return { ...connection.config, type: connection.type };
}

/** Whether the connection's credentials are the service's own tokens rather than a Worker secret. */
export function isFederated(connection: Connection): boolean {
  return connection.federated !== undefined || connection.privateKeyJwt !== undefined;
}
