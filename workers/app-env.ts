import type { Env } from "../shared/env";
import type { RepositoryConfig } from "../shared/schemas/repository";
import type { Caller } from "./auth/caller";

/** Hono's Env for every route: bindings plus what middleware puts on the context. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** Who is calling; set by authentication once it lands (docs/design.md, "Security model"). */
    actor: string;
    /** The authenticated caller (workers/auth/authenticate.ts); unset only on public routes. */
    caller: Caller;
    /** When the caller's credential (token, session or Access assertion) expires, ms since the epoch. */
    credentialExpiresAt: number;
    /** The repository a scope route acts on (workers/auth/resolve-repository.ts); set on scope routes only. */
    repository: RepositoryConfig;
    /** `performance.now()` when the request arrived (workers/http/server-timing.ts). */
    receivedAt: number;
  };
};
