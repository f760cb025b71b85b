/**
 * A plan that works under `npm start` works on the first real pull request: `npm start` runs with a
 * write policy (examples/policy.local.json, its SPONSON_POLICY) whose items are the production
 * example's, Vercel previews included (docs/security.md, "Vercel previews"), so a line is admitted
 * locally exactly when the production example admits it, and the URL shape check refuses the same
 * lines in both. Each side resolves the line through its own connections (the demo tenants locally).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { DEMO_LEGACY } from "../../dev/emulators/auth0/demo";
import { DEMO_PULLS } from "../../dev/emulators/github/demo";
import { matchPattern, parsePattern } from "../../shared/adoption-patterns";
import { type Line, lineSchema, planSchema } from "../../shared/schemas/plan";
import { SecretRegistry } from "../../shared/secrets";
import { itemShapeProblems } from "../../shared/url-shape";
import { ADAPTERS } from "../../workers/adapters";
import { entryOfKey } from "../../workers/adapters/op-spec";
import { connections, writePolicy } from "../../workers/config/config-vars";
import { Connections } from "../../workers/connections/connections";
import { OpRegistry } from "../../workers/engine/plan/op-registry";
import { resolveLine } from "../../workers/engine/plan/resolve-plan";
import { checkWrite } from "../../workers/policy/check-write";

const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const TYPES = new Set(ADAPTERS.map((a) => a.type));

interface Deployment {
  name: string;
  vars: Record<string, string>;
}

/** The production example's JSON vars, as wrangler binds them. */
const production: Deployment = {
  name: "production example",
  vars: Object.fromEntries(
    Object.entries(
      (parse(read("examples/production/wrangler.toml")) as { vars: Record<string, unknown> }).vars,
    ).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)]),
  ),
};
/** What `npm start` configures (scripts/start.mjs): the demo connections and the local policy. */
const local: Deployment = {
  name: "npm start",
  vars: {
    SPONSON_CONNECTIONS: read("examples/connections.local.json"),
    SPONSON_POLICY: read("examples/policy.local.json"),
    EMULATORS: "on",
  },
};

/** Whether `deployment` admits `line` on pr-12 of branch feature/login: the URL shape check and the policy. */
function admits(deployment: Deployment, line: Line, vars: Record<string, string> = {}): boolean {
  const context = {
    ops: new OpRegistry(ADAPTERS),
    connections: new Connections(connections(deployment.vars, TYPES)),
    secrets: new SecretRegistry(),
  };
  const resolved = resolveLine(line, context, {
    environment: "preview",
    scope: "pr-12",
    headBranch: "feature/login",
    vars,
  });
  const item = entryOfKey(resolved.op, resolved.key);
  if (itemShapeProblems(item).length > 0) return false;
  const policy = writePolicy(deployment.vars);
  return checkWrite(policy, "preview", { op: resolved.opName, identity: resolved.parent, item }).ok;
}

/** A connection of `type` and an object its policy names, per deployment: the line is the same otherwise. */
const OBJECTS: Record<string, Record<string, { connection: string; params: Record<string, string> }>> = {
  "npm start": {
    auth0: { connection: "demo-auth0", params: { client: "preview-app" } },
    supabase: { connection: "demo-supabase", params: { project: "sponsondemoproject01" } },
    firebase: { connection: "demo-firebase", params: { project: "sponson-demo" } },
    s3: { connection: "demo-s3", params: { bucket: "sponson-demo-assets", rule: "previews" } },
  },
  "production example": {
    auth0: { connection: "auth0-preview", params: { client: "preview-app" } },
    supabase: { connection: "supabase-preview", params: { project: "abcdefghijklmnopqrst" } },
    firebase: { connection: "firebase-preview", params: { project: "acme-prod" } },
    s3: { connection: "s3-preview", params: { bucket: "acme-assets", rule: "previews" } },
  },
};
const ITEM_PARAM: Record<string, [string, string]> = {
  auth0: ["auth0.callbackUrl", "url"],
  supabase: ["supabase.redirectUrl", "url"],
  firebase: ["firebase.authorizedDomain", "domain"],
  s3: ["s3.corsOrigin", "origin"],
};

function lineFor(deployment: Deployment, type: string, item: string): Line {
  const object = OBJECTS[deployment.name]?.[type];
  const [op, param] = ITEM_PARAM[type] ?? [];
  if (!object || !op || !param) throw new Error(`no ${type} object for ${deployment.name}`);
  return lineSchema.parse({
    id: "l",
    op,
    connection: object.connection,
    params: { ...object.params, [param]: item },
  });
}

/** Preview lines as a Vercel project `web` of team `acme` writes them, and lines that must be refused. */
const ACCEPTED: [string, string][] = [
  ["auth0", "https://web-git-{branch}-acme.vercel.app/callback"],
  ["auth0", "{vars.url}/callback"],
  ["supabase", "https://web-git-{branch}-acme.vercel.app/**"],
  ["firebase", "web-git-{branch}-acme.vercel.app"],
  ["s3", "{vars.url}"],
  ["auth0", "https://pr-{pr}.preview.example.com/callback"],
  ["auth0", "http://localhost:3000/callback"],
];
const REFUSED: [string, string][] = [
  // Another team's deployment, another project's, a lookalike host, a wildcard over vercel.app.
  ["auth0", "https://web-git-{branch}-evil.vercel.app/callback"],
  ["auth0", "https://evil-git-{branch}-acme.vercel.app/callback"],
  ["auth0", "https://web-git-{branch}-acme.vercel.app.evil.example/callback"],
  ["auth0", "https://*.vercel.app/callback"],
  ["supabase", "https://*-acme.vercel.app/**"],
  ["firebase", "vercel.app"],
  ["auth0", "http://web-git-{branch}-acme.vercel.app/callback"],
];
/** The deployment URL a Vercel deploy step prints (`{vars.url}`). */
const VARS = { url: "https://web-a1b2c3d4e-acme.vercel.app" };

describe("Vercel previews: npm start and the production example decide alike", () => {
  it.for(ACCEPTED)("%s %s: admitted by both", ([type, item]) => {
    for (const deployment of [local, production])
      expect([deployment.name, admits(deployment, lineFor(deployment, type, item), VARS)]).toEqual([
        deployment.name,
        true,
      ]);
  });

  it.for(REFUSED)("%s %s: refused by both", ([type, item]) => {
    for (const deployment of [local, production])
      expect([deployment.name, admits(deployment, lineFor(deployment, type, item), VARS)]).toEqual([
        deployment.name,
        false,
      ]);
  });

  it("the two policies admit the same items, so no line passes one and not the other", () => {
    const items = (d: Deployment) =>
      (JSON.parse(d.vars.SPONSON_POLICY as string) as { environments: { preview: { items: string[] } } })
        .environments.preview.items;
    expect(items(local)).toEqual(items(production));
    expect(items(local)).toEqual(expect.arrayContaining(["https://web-*-acme.vercel.app/*"]));
  });

  it("control: without the Vercel items the production example refuses the branch URL", () => {
    const policy = JSON.parse(production.vars.SPONSON_POLICY as string) as {
      environments: { preview: { items: string[] } };
    };
    policy.environments.preview.items = policy.environments.preview.items.filter(
      (i) => !i.includes("vercel"),
    );
    const without = {
      name: production.name,
      vars: { ...production.vars, SPONSON_POLICY: JSON.stringify(policy) },
    };
    expect(admits(without, lineFor(production, "auth0", ACCEPTED[0]?.[1] ?? ""), VARS)).toBe(false);
  });
});

describe("npm start's policy admits the example plans", () => {
  it.for(["plan.json", "shared.plan.json", "all-providers.plan.json"])(
    "every line of examples/%s",
    (file) => {
      const plan = planSchema.parse(JSON.parse(read(`examples/${file}`)));
      const refused = plan.lines.filter((line) => !admits(local, line));
      expect(refused.map((l) => l.id)).toEqual([]);
    },
  );
});

/**
 * docs/deploy.md's adoption demo ("Day one: existing entries", locally): the command it prints, run
 * against `npm start`, adopts the demo tenant's `legacy-app` entries. Each entry the doc's pattern
 * matches is one npm start's connections and policy admit as a plan line (the adoption checks it
 * as one), the pattern is examples/plan.json's own callback shape, and the emulated GitHub knows
 * each pull request it names.
 */
describe("npm start admits docs/deploy.md's adoption demo", () => {
  const command =
    /npx sponson adopt --connection (\S+)[^`]*?--param client=(\S+)[^`]*?--pattern '([^']+)'/.exec(
      read("docs/deploy.md"),
    );
  const [, connection, client, source] = command ?? [];

  it("the doc's pattern is the example plan's callback item, and matches the demo's pull requests", () => {
    expect(connection).toBe("demo-auth0");
    const plan = planSchema.parse(JSON.parse(read("examples/plan.json")));
    expect(plan.lines.find((l) => l.op === "auth0.callbackUrl")?.params.url).toBe(source);
    const matched = demoMatches(source ?? "");
    expect(matched.map((m) => m.pr)).toEqual([71, 72, 73]);
    for (const { pr } of matched) expect(DEMO_PULLS.has(pr)).toBe(true);
  });

  it("each entry the pattern matches is admitted, as a line of its pull request would be", () => {
    const refused = demoMatches(source ?? "").filter(
      ({ key }) =>
        !admits(
          local,
          lineSchema.parse({
            id: "adopted",
            op: "auth0.callbackUrl",
            connection,
            params: { client, url: key },
          }),
        ),
    );
    expect(refused.map((m) => m.key)).toEqual([]);
  });
});

function demoMatches(source: string): { key: string; pr: number }[] {
  const parsed = parsePattern(source, "preview");
  if (!parsed.ok) throw new Error(parsed.problem);
  return DEMO_LEGACY.callbacks.flatMap((key) => {
    const m = matchPattern(parsed.pattern, key);
    return m !== null && "pr" in m ? [{ key, pr: m.pr }] : [];
  });
}
