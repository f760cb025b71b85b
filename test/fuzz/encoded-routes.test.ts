/**
 * Every route, every method, every role: each character of the path percent-encoded (upper- and
 * lower-case hex) and doubly encoded answers exactly as the plain path does (docs/security.md, "One
 * path"): same status, same problem code, same refusing rule — and never a 5xx. Bodies are `[]`, which
 * no route accepts (every body is an object), so nothing here changes state.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, testApp } from "../helpers/app";
import { mintServiceToken } from "../helpers/tokens";

const app = testApp();
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
const ROLES = ["anonymous", "viewer", "ci", "admin"] as const;
type Role = (typeof ROLES)[number];
const PARAMS: Record<string, string> = {
  environment: "preview",
  scope: "pr-1",
  key: encodeURIComponent("scope:186853002/preview/pr-1"),
  host: "fuzz.example.com",
};

/** The app's own route table, with each parameter filled in: a new route is fuzzed without edits. */
function plainPaths(): string[] {
  const paths = app.routes
    .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
    .map((r) => r.path.replace(/:([a-z]+)/g, (_m, name: string) => PARAMS[name] ?? "x"));
  return [...new Set(paths)].sort();
}

const hex = (ch: string) => ch.charCodeAt(0).toString(16).padStart(2, "0");

/** Each character not already inside an escape, spelled `%XX`, `%xx` and `%25XX`. */
function encodedVariants(path: string): string[] {
  const variants: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const ch = path.charAt(i);
    if (ch === "%") {
      i += 2;
      continue;
    }
    if (ch === "/" || ch.charCodeAt(0) > 0x7f) continue;
    const [before, after] = [path.slice(0, i), path.slice(i + 1)];
    const h = hex(ch);
    variants.push(`${before}%${h.toUpperCase()}${after}`, `${before}%${h}${after}`);
    variants.push(`${before}%25${h.toUpperCase()}${after}`);
  }
  return [...new Set(variants)];
}

const tokens: Partial<Record<Role, string>> = {};
beforeAll(async () => {
  tokens.viewer = await mintServiceToken({ role: "viewer" });
  tokens.ci = await mintServiceToken({ role: "ci", scopes: ["*/*"] });
  tokens.admin = await mintServiceToken({ role: "admin" });
});

interface Decision {
  status: number;
  code?: string;
  rule?: string;
  location?: string | null;
}

async function decide(method: string, path: string, role: Role): Promise<Decision> {
  const token = tokens[role];
  const headers: Record<string, string> = { authorization: token ? `Bearer ${token}` : "" };
  const body = method === "GET" || method === "HEAD" ? undefined : "[]";
  const res = await call(app, method, path, body, headers);
  const decision: Decision = { status: res.status, location: res.headers.get("location") };
  if ((res.headers.get("content-type") ?? "").includes("problem+json") && method !== "HEAD") {
    const problem = (await res.json()) as { code?: string; rule?: string };
    decision.code = problem.code;
    if (problem.rule !== undefined) decision.rule = problem.rule;
  } else {
    await res.body?.cancel();
  }
  return decision;
}

/** A few requests at a time: the app is in-process, so this only overlaps waiting on storage. */
async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
}

describe("encoded spellings of every route", () => {
  it("the route table has the routes this fuzz is about", () => {
    expect(plainPaths()).toEqual(expect.arrayContaining(["/v1/orphans", `/v1/locks/${PARAMS.key}`]));
  });

  it.each(plainPaths())("%s: every method and role decides as for the plain path", async (plain) => {
    const variants = encodedVariants(plain);
    expect(variants.length).toBeGreaterThan(0);
    for (const method of METHODS) {
      for (const role of ROLES) {
        const expected = await decide(method, plain, role);
        expect(expected.status, `${method} ${plain} as ${role}`).toBeLessThan(500);
        await inBatches(variants, 8, async (variant) => {
          const got = await decide(method, variant, role);
          expect(got, `${method} ${variant} as ${role} (plain: ${plain})`).toEqual(expected);
        });
      }
    }
  });
});
