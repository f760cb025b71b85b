import type { Env } from "../shared/env";

/** Hono's Env for every route: bindings plus what middleware puts on the context. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** Who is calling; set by authentication once it lands (DESIGN §7). */
    actor: string;
  };
};
