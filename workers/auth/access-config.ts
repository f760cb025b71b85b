/**
 * SPONSON_ACCESS (docs/security.md, "Cloudflare Access"): the Access team whose assertions the
 * service accepts, the application's audience tag, and which identities are who. Service
 * configuration only: the team domain decides the issuer and where its keys are fetched; nothing in
 * a request or token chooses either. Pure: the identity in, a role (and repository) or null out.
 */
import { z } from "zod";
import { repositoryNameSchema } from "../../shared/schemas/repository";

/**
 * `https://<team>.cloudflareaccess.com`, the issuer of the team's assertions. A `.localhost` host
 * (RFC 6761: never resolvable on the internet) is the local issuer `npm start` runs.
 */
const teamDomainSchema = z
  .url()
  .transform((u) => u.replace(/\/+$/, ""))
  .refine((u) => {
    const url = new URL(u);
    const bare = url.pathname === "/" || url.pathname === "";
    const host = url.hostname;
    return (
      url.protocol === "https:" &&
      bare &&
      url.search === "" &&
      (/^[a-z0-9-]+\.cloudflareaccess\.com$/.test(host) || host.endsWith(".localhost"))
    );
  }, "the team domain is https://<team>.cloudflareaccess.com");

const email = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[^@\s]+@[^@\s]+$/, "an email address");

/** One rule: who (exactly one of email, emailDomain, group) and what they are. */
export const accessRuleSchema = z
  .strictObject({
    email: email.optional(),
    /** Every address at this domain, e.g. `example.com`. */
    emailDomain: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, "a domain such as example.com")
      .optional(),
    /** An Access group name, as the identity provider passes it in the assertion's `groups`. */
    group: z.string().min(1).max(200).optional(),
    /** Access identities read (viewer) or administer (admin); CI uses OIDC or ci tokens. */
    role: z.enum(["viewer", "admin"]),
    /** Binds a viewer's reads to one repository, like a viewer token's `repository` claim. */
    repository: repositoryNameSchema.optional(),
  })
  .refine(
    (r) => [r.email, r.emailDomain, r.group].filter((x) => x !== undefined).length === 1,
    "each rule names exactly one of email, emailDomain or group",
  )
  .refine((r) => r.role !== "admin" || r.repository === undefined, "an admin rule names no repository");
export type AccessRule = z.infer<typeof accessRuleSchema>;

export const accessConfigSchema = z.strictObject({
  teamDomain: teamDomainSchema,
  /** The Access application's Application Audience (AUD) tag. */
  audience: z.string().trim().min(1).max(200),
  /** Checked in order; the first rule that matches decides. An identity no rule names is refused. */
  identities: z.array(accessRuleSchema).min(1).max(500),
});
export type AccessConfig = z.infer<typeof accessConfigSchema>;

export interface AccessIdentity {
  email: string;
  groups: readonly string[];
}

/** Where Cloudflare publishes a team's signing keys. */
export function accessCertsUrl(teamDomain: string): URL {
  return new URL(`${teamDomain}/cdn-cgi/access/certs`);
}

/** The first rule naming this identity, or null: then the identity is refused. */
export function matchAccessRule(rules: readonly AccessRule[], identity: AccessIdentity): AccessRule | null {
  const address = identity.email.toLowerCase();
  const domain = address.slice(address.lastIndexOf("@") + 1);
  for (const rule of rules) {
    if (rule.email !== undefined && rule.email === address) return rule;
    if (rule.emailDomain !== undefined && rule.emailDomain === domain) return rule;
    if (rule.group !== undefined && identity.groups.includes(rule.group)) return rule;
  }
  return null;
}
