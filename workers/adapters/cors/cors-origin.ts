/**
 * The bucket-CORS ops (GCS, S3, R2) add or remove one origin inside the rule a line names, and
 * never touch another rule or another origin. A rule is named by its ID (S3 `ID`, R2
 * `id`) or by an index label `#<n>` (GCS rules have no ID). A missing rule is created: with that ID,
 * or appended when `#<n>` is the next index. Pure functions over each provider's own rule shape.
 */
import { z } from "zod";
import { SponsonError } from "../../../shared/errors";

export const corsLineParamsSchema = z.strictObject({
  bucket: z.string().regex(/^[a-z0-9][a-z0-9._-]{1,221}[a-z0-9]$/, "a bucket name"),
  /** `#0`, `#1` … or a rule ID (letters, digits, `-_.`). */
  rule: z.string().regex(/^(#\d{1,3}|[A-Za-z0-9][A-Za-z0-9_.-]{0,254})$/, "a rule ID or an index label #<n>"),
  /** `*`, or a scheme and host (one `*` label allowed, e.g. https://*.preview.example.com). */
  origin: z
    .string()
    .max(2_000)
    .regex(/^(\*|https?:\/\/[^\s/,]+)$/, "an origin: scheme://host[:port] or *"),
  /** Methods of a rule the op has to create, comma-separated; default GET,HEAD. */
  methods: z
    .string()
    .regex(/^(GET|HEAD|PUT|POST|DELETE)(,(GET|HEAD|PUT|POST|DELETE))*$/)
    .optional(),
});
export type CorsLineParams = z.infer<typeof corsLineParamsSchema>;

export function ruleMethods(params: CorsLineParams): string[] {
  return params.methods?.split(",") ?? ["GET", "HEAD"];
}

export interface RuleAccess<R> {
  id(rule: R): string | undefined;
  origins(rule: R): string[];
  withOrigins(rule: R, origins: string[]): R;
  /** A new rule holding `origin`, with `id` when the line named one. */
  create(id: string | undefined, origin: string): R;
}

type Ref = { index: number } | { id: string };

function ref(label: string): Ref {
  return label.startsWith("#") ? { index: Number(label.slice(1)) } : { id: label };
}

export function findRule<R>(rules: readonly R[], label: string, access: RuleAccess<R>): number {
  const r = ref(label);
  if ("index" in r) return r.index < rules.length ? r.index : -1;
  return rules.findIndex((rule) => access.id(rule) === r.id);
}

export function hasOrigin<R>(
  rules: readonly R[],
  label: string,
  origin: string,
  access: RuleAccess<R>,
): boolean {
  const i = findRule(rules, label, access);
  return i >= 0 && access.origins(rules[i] as R).includes(origin);
}

/** The rules with `origin` added to the named rule (created if absent); others untouched. */
export function withOrigin<R>(
  rules: readonly R[],
  label: string,
  origin: string,
  access: RuleAccess<R>,
): R[] {
  const i = findRule(rules, label, access);
  if (i >= 0) {
    const rule = rules[i] as R;
    if (access.origins(rule).includes(origin)) return [...rules];
    return rules.map((r, j) => (j === i ? access.withOrigins(rule, [...access.origins(rule), origin]) : r));
  }
  const r = ref(label);
  if ("index" in r && r.index !== rules.length) {
    throw new SponsonError(
      "VALIDATION",
      `CORS rule ${label} does not exist; the next rule is #${rules.length} (or name the rule by an ID)`,
    );
  }
  return [...rules, access.create("id" in r ? r.id : undefined, origin)];
}

/**
 * The rules without `origin` in the named rule. A rule left with no origin is dropped when it has
 * an ID or is the last one; an index-labelled rule in the middle stays (empty), so the labels of the
 * rules after it keep pointing where they did.
 */
export function withoutOrigin<R>(
  rules: readonly R[],
  label: string,
  origin: string,
  access: RuleAccess<R>,
): R[] {
  const i = findRule(rules, label, access);
  if (i < 0) return [...rules];
  const rule = rules[i] as R;
  const left = access.origins(rule).filter((o) => o !== origin);
  if (left.length === 0 && (!label.startsWith("#") || i === rules.length - 1)) {
    return rules.filter((_, j) => j !== i);
  }
  return rules.map((r, j) => (j === i ? access.withOrigins(rule, left) : r));
}
