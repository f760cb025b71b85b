/** The HTML shell of every dashboard page; styles and the script carry the response's CSP nonce. */

import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { CLIENT_SCRIPT } from "./client-script";
import { IDIOMORPH_SCRIPT } from "./idiomorph-script";
import { STYLES } from "./styles";

export interface LayoutProps {
  title: string;
  nonce: string;
  /** Only the signed-in dashboard runs the live script. */
  script?: boolean;
  children?: Child;
}

export function Layout(props: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        {/* Constants written in this repository, never data: safe to emit unescaped. */}
        <style nonce={props.nonce}>{raw(STYLES)}</style>
      </head>
      <body>
        {props.children}
        {props.script ? (
          <>
            {/* idiomorph first: the live script morphs its refreshes with it (client-script.ts). */}
            <script nonce={props.nonce}>{raw(IDIOMORPH_SCRIPT)}</script>
            <script nonce={props.nonce}>{raw(CLIENT_SCRIPT)}</script>
          </>
        ) : null}
      </body>
    </html>
  );
}

/** A fresh nonce and the policy that goes with it: nothing inline runs without it, no framing. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
