/**
 * A signing-key secret holding several keys by `kid` (docs/design.md, "Signing keys"): the key that
 * signs (`current`), the one published before it signs (`next`), the one that stopped signing but
 * still verifies (`previous`) and the kids that are refused by name (`retired`). Each key carries its
 * algorithm: service tokens are EdDSA (Ed25519), the federation key RS256, the one algorithm every
 * cloud's workload identity federation accepts. A lone private JWK (the format before rotation) is
 * read as a ring whose only key is `current`.
 */
import { z } from "zod";

export const KEY_STATUSES = ["current", "next", "previous", "retired"] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

const b64u = z.string().regex(/^[A-Za-z0-9_-]+$/, "base64url");

export const okpPublicSchema = z.object({
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: b64u.min(40),
});
export const rsaPublicSchema = z.object({
  kty: z.literal("RSA"),
  // 2048 bits at least: 342 base64url characters.
  n: b64u.min(342, "an RSA modulus of 2048 bits or more"),
  e: b64u,
});
const rsaPrivateParts = {
  d: b64u.min(40),
  p: b64u.optional(),
  q: b64u.optional(),
  dp: b64u.optional(),
  dq: b64u.optional(),
  qi: b64u.optional(),
};

const kidSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "a key id of letters, digits and _.:-");
// WebCrypto exports Ed25519 keys with alg "Ed25519"; JOSE names the algorithm EdDSA.
const keyMeta = { kid: kidSchema.optional(), alg: z.enum(["EdDSA", "Ed25519", "RS256"]).optional() };

const okpKeySchema = okpPublicSchema.extend({ ...keyMeta, d: b64u.min(40).optional() });
const rsaKeySchema = rsaPublicSchema.extend({ ...keyMeta, ...rsaPrivateParts, d: b64u.min(40).optional() });
const material = z.discriminatedUnion("kty", [okpKeySchema, rsaKeySchema]);
export type KeyMaterial = z.infer<typeof material>;

/** A key of the ring; a retired key keeps only its kid (its material is gone on purpose). */
export const ringEntrySchema = z.union([
  z.strictObject({ kid: kidSchema, status: z.literal("retired") }),
  z.intersection(material, z.object({ status: z.enum(["current", "next", "previous"]) })),
]);
export type RingEntry = z.infer<typeof ringEntrySchema>;

export const keyRingSchema = z
  .object({ keys: z.array(ringEntrySchema).min(1).max(20) })
  .superRefine((ring, ctx) => {
    const current = ring.keys.filter((k) => k.status === "current");
    if (current.length > 1) ctx.addIssue({ code: "custom", message: "at most one key is current" });
    if (ring.keys.filter((k) => k.status === "next").length > 1)
      ctx.addIssue({ code: "custom", message: "at most one key is next" });
    for (const key of ring.keys) {
      if ((key.status === "current" || key.status === "next") && !("d" in key && key.d)) {
        ctx.addIssue({ code: "custom", message: `a ${key.status} key must hold its private part (d)` });
      }
      if (key.status !== "retired" && key.kid === undefined) {
        ctx.addIssue({ code: "custom", message: "every key of a ring names its kid" });
      }
    }
    const kids = ring.keys.map((k) => k.kid);
    if (new Set(kids).size !== kids.length) ctx.addIssue({ code: "custom", message: "kids are unique" });
  });
export type KeyRingDocument = z.infer<typeof keyRingSchema>;

/** The secret's JSON: a ring, or one private JWK (kept working: it is the ring's only current key). */
export const signingSecretSchema = z.union([
  keyRingSchema,
  material.refine((k) => k.d !== undefined, "a private JWK (with d)"),
]);
