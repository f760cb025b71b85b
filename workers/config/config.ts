/**
 * The Worker's configuration: one object, parsed once per configuration text and cached. Each
 * setting is parsed independently: reading a setting whose var is invalid throws the problem naming
 * that var (500 INTERNAL), so a typo in one var does not take down routes that never read it
 * (liveness, the webhook receiver). `assertConfigValid` reads them all, for the routes that must refuse
 * a misconfigured Worker outright.
 */
import type { RepositoryConfig } from "../../shared/schemas/repository";
import { ADAPTERS } from "../adapters";
import { type AccessConfig, accessConfigSchema } from "../auth/access-config";
import type { Role } from "../auth/caller";
import { DEFAULT_MAX_LIFETIME_SECONDS, maxLifetimeSchema } from "../auth/token-lifetime";
import type { ConnectionsDocument } from "../connections/connection-schema";
import { type NotifyConfig, notifyConfigFromEnv } from "../notify/notify-config";
import type { PlatformConnection } from "../platforms/platform-schema";
import type { PolicyConfig } from "../policy/policy-schema";
import { type CloseGrace, closeGraceFromEnv } from "../sweep/close-grace";
import {
  connections,
  DEFAULT_LEASE_TTL_SECONDS,
  DEFAULT_WAIT_TIMEOUT_SECONDS,
  type EnvironmentSettings,
  environmentSettings,
  environments,
  githubIssuer,
  jsonVar,
  onOff,
  optionalText,
  platforms,
  positiveSeconds,
  repositories,
  type Vars,
  writeCombining,
  writePolicy,
} from "./config-vars";

/** Well under every idle timeout on the way (Node's fetch: 300 s; proxies: often 60–100 s). */
export const DEFAULT_STREAM_KEEPALIVE_SECONDS = 15;

const PROVIDER_TYPES: ReadonlySet<string> = new Set(ADAPTERS.map((a) => a.type));

/** Every setting, with the function that reads it from the vars. */
const READERS = {
  /** LEASE_TTL_SECONDS: how long a lease lasts without renewal. */
  leaseTtlSeconds: (v: Vars): number => positiveSeconds(v, "LEASE_TTL_SECONDS", DEFAULT_LEASE_TTL_SECONDS),
  /** WAIT_TIMEOUT_SECONDS: how long a run waits for a held lock unless the request names a timeout. */
  waitTimeoutSeconds: (v: Vars): number =>
    positiveSeconds(v, "WAIT_TIMEOUT_SECONDS", DEFAULT_WAIT_TIMEOUT_SECONDS),
  /**
   * SPONSON_RECENT_WRITES_SECONDS: how long a parent lock remembers writes to a provider that may
   * not show them to the next read; 0 (unset) keeps each op's own window.
   */
  recentWritesSeconds: (v: Vars): number => positiveSeconds(v, "SPONSON_RECENT_WRITES_SECONDS", 0),
  /** STREAM_KEEPALIVE_SECONDS: how often a streamed run sends a `keepalive` line while it runs. */
  streamKeepAliveSeconds: (v: Vars): number =>
    positiveSeconds(v, "STREAM_KEEPALIVE_SECONDS", DEFAULT_STREAM_KEEPALIVE_SECONDS),
  /** GITHUB_OIDC_ISSUER, without a trailing slash. */
  githubIssuer: (v: Vars): string => githubIssuer(v),
  /** SPONSON_AUDIENCE: required for GitHub tokens; null refuses every GitHub token (fail closed). */
  audience: (v: Vars): string | null => optionalText(v, "SPONSON_AUDIENCE"),
  /** SPONSON_REPOSITORIES: the repositories the service acts for; `[]` when unset. */
  repositories: (v: Vars): RepositoryConfig[] => repositories(v),
  /** SPONSON_ENVIRONMENTS: where a closed pull request's scope is destroyed; `["preview"]` when unset. */
  environments: (v: Vars): string[] => environments(v),
  /** SPONSON_ENVIRONMENTS' per-environment settings (`staleAfterDays`); `{}` when none is set. */
  environmentSettings: (v: Vars): Record<string, EnvironmentSettings> => environmentSettings(v),
  /** SPONSON_POLICY (and EMULATORS for the open local policy): the server-side write policy. */
  policy: (v: Vars): PolicyConfig => writePolicy(v),
  /** SPONSON_WRITE_COMBINING: environments where write combining is off (`false`); on elsewhere. */
  writeCombining: (v: Vars): Record<string, boolean> => writeCombining(v),
  /** SPONSON_CONNECTIONS: the provider accounts runs may use; `{}` when unset. */
  connections: (v: Vars): ConnectionsDocument => connections(v, PROVIDER_TYPES),
  /** SPONSON_PLATFORMS: Vercel projects and Netlify sites whose deploys register previews; `[]` when unset. */
  platforms: (v: Vars): PlatformConnection[] => platforms(v),
  /** SERVICE_SIGNING_KEY (private JWK JSON), raw; its content is checked by workers/auth/service-keys.ts. */
  serviceSigningKey: (v: Vars): string | null => optionalText(v, "SERVICE_SIGNING_KEY", { secret: true }),
  /** SERVICE_PUBLIC_KEY (JWK or JWKS JSON), raw. */
  servicePublicKeys: (v: Vars): string | null => optionalText(v, "SERVICE_PUBLIC_KEY", { secret: true }),
  /** FEDERATION_SIGNING_KEY (RS256 JWK or key ring JSON), raw; checked by workers/keys/. */
  federationSigningKey: (v: Vars): string | null =>
    optionalText(v, "FEDERATION_SIGNING_KEY", { secret: true }),
  /** SPONSON_PUBLIC_URL: the service's public origin, the issuer of its federation tokens. */
  publicUrl: (v: Vars): string | null => optionalText(v, "SPONSON_PUBLIC_URL"),
  /** SERVICE_TOKEN_MAX_LIFETIME_SECONDS: the longest `exp - iat` per role (workers/auth/token-lifetime.ts). */
  serviceTokenMaxLifetime: (v: Vars): Record<Role, number> => ({
    ...DEFAULT_MAX_LIFETIME_SECONDS,
    ...jsonVar(v, "SERVICE_TOKEN_MAX_LIFETIME_SECONDS", maxLifetimeSchema),
  }),
  /** SPONSON_RATE_LIMIT: `on` / `off`; null (unset) leaves it to the entry (workers/http/rate-limit.ts). */
  rateLimit: (v: Vars): "on" | "off" | null => onOff(v, "SPONSON_RATE_LIMIT"),
  /** SPONSON_ACCESS: Cloudflare Access sign-in (workers/auth/access-config.ts); null (unset) accepts none. */
  access: (v: Vars): AccessConfig | null => jsonVar(v, "SPONSON_ACCESS", accessConfigSchema) ?? null,
  /** GITHUB_WEBHOOK_SECRET: unset refuses every webhook. */
  webhookSecret: (v: Vars): string | null => optionalText(v, "GITHUB_WEBHOOK_SECRET", { secret: true }),
  /** SPONSON_NOTIFY: notification targets and kinds (docs/operations.md); `{}` when unset. */
  notify: (v: Vars): NotifyConfig => notifyConfigFromEnv(v),
  /** SPONSON_CLOSE_GRACE_SECONDS and SPONSON_CLOSE_MAX_RESENDS: the sweep's re-sends of lost destroys. */
  closeGrace: (v: Vars): CloseGrace => closeGraceFromEnv(v),
};

type Readers = typeof READERS;
export type Config = { readonly [K in keyof Readers]: ReturnType<Readers[K]> };

/** The vars the config reads; the cache key is their values. */
export const CONFIG_VARS = [
  "LEASE_TTL_SECONDS",
  "WAIT_TIMEOUT_SECONDS",
  "STREAM_KEEPALIVE_SECONDS",
  "GITHUB_OIDC_ISSUER",
  "SPONSON_AUDIENCE",
  "SPONSON_REPOSITORIES",
  "SPONSON_ENVIRONMENTS",
  "SPONSON_POLICY",
  "EMULATORS",
  "SPONSON_CONNECTIONS",
  "SPONSON_PLATFORMS",
  "SPONSON_WRITE_COMBINING",
  "SPONSON_RECENT_WRITES_SECONDS",
  "SERVICE_SIGNING_KEY",
  "SERVICE_PUBLIC_KEY",
  "FEDERATION_SIGNING_KEY",
  "SPONSON_PUBLIC_URL",
  "GITHUB_WEBHOOK_SECRET",
  "SERVICE_TOKEN_MAX_LIFETIME_SECONDS",
  "SPONSON_RATE_LIMIT",
  "SPONSON_ACCESS",
  "SPONSON_NOTIFY",
  "SPONSON_CLOSE_GRACE_SECONDS",
  "SPONSON_CLOSE_MAX_RESENDS",
] as const;

type Parsed = { ok: true; value: unknown } | { ok: false; error: unknown };

function parseConfig(vars: Vars): Config {
  const config = {};
  for (const [key, read] of Object.entries(READERS) as [string, (v: Vars) => unknown][]) {
    let parsed: Parsed;
    try {
      parsed = { ok: true, value: read(vars) };
    } catch (error) {
      parsed = { ok: false, error };
    }
    Object.defineProperty(config, key, {
      enumerable: true,
      get: () => {
        if (!parsed.ok) throw parsed.error;
        return parsed.value;
      },
    });
  }
  return Object.freeze(config) as Config;
}

/** A few texts at most: production has one; tests alternate between a handful. */
const MAX_CACHED = 16;
const byText = new Map<string, Config>();
const byEnv = new WeakMap<object, { values: unknown[]; config: Config }>();

function valuesOf(vars: Vars): unknown[] {
  return CONFIG_VARS.map((name) => vars[name] ?? null);
}

/** Same values, compared by identity: the same env hands back the same strings, so no text is built. */
function sameValues(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * The configuration for these bindings, parsed once per distinct configuration text. A request
 * reads it several times (auth, routes, engine): for an env seen before, the values are compared
 * one by one instead of serialising them all again (a profile showed that serialisation per call).
 */
export function configFromEnv(env: object): Config {
  const vars = env as Vars;
  const values = valuesOf(vars);
  const hit = byEnv.get(env);
  if (hit && sameValues(hit.values, values)) return hit.config;
  const text = JSON.stringify(values);
  let config = byText.get(text);
  if (!config) {
    config = parseConfig(vars);
    if (byText.size >= MAX_CACHED) byText.delete(byText.keys().next().value as string);
    byText.set(text, config);
  }
  byEnv.set(env, { values, config });
  return config;
}

/** Reads every setting: throws the first misconfiguration, naming its var. */
export function assertConfigValid(config: Config): void {
  for (const key of Object.keys(READERS) as (keyof Readers)[]) void config[key];
}
