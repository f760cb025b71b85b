/**
 * examples/production/wrangler.toml is a deployment that works the first time: its policy admits
 * every example line of docs/adapters.md's provider table (read from the page, so a new row is
 * covered), resolved through its own connections for a pull request's scope — Supabase's `/**`
 * entry included — and refuses an item outside the preview domain. Its two repositories each write
 * through their own connections, into their own objects only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { lineSchema } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { ADAPTERS } from "../../workers/adapters";
import { entryOfKey } from "../../workers/adapters/op-spec";
import { connections, writePolicy } from "../../workers/config/config-vars";
import { Connections } from "../../workers/connections/connections";
import { OpRegistry } from "../../workers/engine/plan/op-registry";
import { resolveLine } from "../../workers/engine/plan/resolve-plan";
import { checkWrite } from "../../workers/policy/check-write";

const ROOT = join(import.meta.dirname, "..", "..");
const toml = parse(readFileSync(join(ROOT, "examples", "production", "wrangler.toml"), "utf8")) as {
  vars: Record<string, unknown>;
};
const vars = Object.fromEntries(
  Object.entries(toml.vars).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : v]),
);
const policy = writePolicy(vars);
const context = {
  ops: new OpRegistry(ADAPTERS),
  connections: new Connections(
    connections(vars, new Set(ADAPTERS.map((a) => a.type))),
    (JSON.parse(String(vars.SPONSON_REPOSITORIES)) as Array<{ name: string }>).map((r) => r.name),
  ),
  secrets: new SecretRegistry(),
};

/** Each `{ "id": … }` example in docs/adapters.md's "Supported providers and ops" table. */
const adapters = readFileSync(join(ROOT, "docs", "adapters.md"), "utf8");
const table = adapters.slice(
  adapters.indexOf("## Supported providers and ops"),
  adapters.indexOf("Connections per provider"),
);
const examples = [...table.matchAll(/`(\{ "id": .*? \})`/g)].map((m) =>
  lineSchema.parse(JSON.parse(m[1] as string)),
);

describe("the production example", () => {
  it("is enforced and the providers table has an example per op", () => {
    expect(policy.mode).toBe("enforced");
    expect(examples.map((e) => e.op).sort()).toEqual(
      expect.arrayContaining(["auth0.callbackUrl", "supabase.redirectUrl", "s3.corsOrigin"]),
    );
    expect(examples.length).toBeGreaterThanOrEqual(10);
  });

  it.for(examples.map((e) => [e.id, e] as const))("admits the providers table's %s line", ([, line]) => {
    const resolved = resolveLine(line, context, { environment: "preview", scope: "pr-12" });
    // What the engine asks the policy: the entry (an Entra key also names its platform).
    const item = entryOfKey(resolved.op, resolved.key);
    const target = { op: resolved.opName, identity: resolved.parent, item };
    expect(checkWrite(policy, "preview", target)).toEqual({ ok: true, value: undefined });
    // acme/web's line: its connection names the repository and the object (docs/security.md, "Several repositories").
    expect(context.connections.bindingOf(resolved.connection, "acme/web")).toEqual({ bound: true });
    expect(context.connections.writesObject(resolved.connection, resolved.parent)).toBe(true);
  });

  it("two repositories, each with its own Auth0 connection: neither writes through the other's, nor into its application", () => {
    const line = examples.find((e) => e.op === "auth0.callbackUrl");
    if (!line) throw new Error("docs/adapters.md has an Auth0 example");
    expect(context.connections.bindingOf("auth0-api-preview", "acme/web")).toMatchObject({ bound: false });
    expect(context.connections.bindingOf("auth0-preview", "acme/api")).toMatchObject({ bound: false });
    const theirs = resolveLine({ ...line, params: { ...line.params, client: "api-preview-app" } }, context, {
      environment: "preview",
      scope: "pr-12",
    });
    expect(context.connections.writesObject("auth0-preview", theirs.parent)).toBe(false);
    expect(context.connections.writesObject("auth0-api-preview", theirs.parent)).toBe(true);
  });

  it("refuses the same Supabase line outside the preview domain", () => {
    const supabase = examples.find((e) => e.op === "supabase.redirectUrl");
    if (!supabase) throw new Error("docs/adapters.md has a Supabase example");
    const line = { ...supabase, params: { ...supabase.params, url: "https://evil.example.net/**" } };
    const resolved = resolveLine(line, context, { environment: "preview", scope: "pr-12" });
    const result = checkWrite(policy, "preview", {
      op: resolved.opName,
      identity: resolved.parent,
      item: resolved.key,
    });
    expect(result.ok).toBe(false);
  });
});
