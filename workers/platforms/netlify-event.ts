/**
 * The fields of Netlify's deploy notification body (the Deploy object) the door reads
 * (docs/webhooks.md, "Netlify"). Netlify signs it with the hook's JWS secret only: whatever it says
 * — the site, the pull request (`review_id`), the branch — is believed because the secret is the
 * hook's, and the site is bound to the connection's repository by the operator (docs/design.md,
 * "The platform door", says what that trusts).
 */
import { z } from "zod";

/** `building` (Deploy started) and `ready` (Deploy succeeded) register; every other state does not. */
export const NETLIFY_REGISTERING_STATES: ReadonlySet<string> = new Set(["building", "ready"]);

const hostLabel = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const netlifyDeploySchema = z.looseObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "not a Netlify deploy id"),
  site_id: z.string().min(1).max(100),
  /** The site's name: its `<name>.netlify.app` host. */
  name: z.string().regex(hostLabel, "not a Netlify site name"),
  state: z.string().max(40),
  context: z.string().max(60),
  review_id: z.number().int().positive().max(9_999_999_999).nullable().optional(),
  branch: z.string().max(255).nullable().optional(),
  commit_ref: z.string().max(100).nullable().optional(),
  deploy_ssl_url: z.string().max(500).nullable().optional(),
  admin_url: z.string().max(500).nullable().optional(),
  created_at: z.iso.datetime({ offset: true }),
  draft: z.boolean().nullable().optional(),
});
export type NetlifyDeploy = z.infer<typeof netlifyDeploySchema>;

/** The site an unverified body names: only which connection's secret to check it with. */
export function claimedNetlifySite(body: Uint8Array): string | null {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { site_id?: unknown };
    const id = parsed?.site_id;
    return typeof id === "string" && id.length > 0 && id.length <= 100 ? id : null;
  } catch {
    return null;
  }
}

/**
 * A deploy's URLs as Netlify forms them: its own (`deploy_ssl_url`, `https://<deploy id>--<site>.netlify.app`),
 * and the stable one of its pull request (`https://deploy-preview-<n>--<site>.netlify.app`) or of
 * its branch (`https://<branch>--<site>.netlify.app`, the branch as a host label).
 */
export function netlifyUrls(deploy: NetlifyDeploy): { url: string; branchUrl?: string } | null {
  const own = deploy.deploy_ssl_url ?? `https://${deploy.id}--${deploy.name}.netlify.app`;
  if (!/^https:\/\/[a-z0-9.-]+\.netlify\.app$/.test(own.toLowerCase())) return null;
  const url = own.toLowerCase();
  if (deploy.context === "deploy-preview" && typeof deploy.review_id === "number")
    return { url, branchUrl: `https://deploy-preview-${deploy.review_id}--${deploy.name}.netlify.app` };
  const label = (deploy.branch ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return label !== "" && hostLabel.test(label) && label.length + deploy.name.length + 2 <= 63
    ? { url, branchUrl: `https://${label}--${deploy.name}.netlify.app` }
    : { url };
}
