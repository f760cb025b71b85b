/** The sign-in form: a token in, a session cookie out. The token field is never filled back in. */
import { Layout } from "./layout";

export interface SignInProps {
  nonce: string;
  /** A fixed message chosen by the server; never text from the submitted token. */
  error?: string;
  signedOut?: boolean;
}

export function SignInPage(props: SignInProps) {
  return (
    <Layout title="Sign in · Sponson Edge" nonce={props.nonce}>
      <main class="signin">
        <div class="card">
          <h1>Sponson Edge dashboard</h1>
          <p class="muted">
            Sign in with a service token (<code>npm run token -- --role viewer</code>, or <code>admin</code>{" "}
            to force-release locks). The token is kept in an HttpOnly cookie for this site only.
          </p>
          {props.signedOut ? <p class="notice ok">Signed out.</p> : null}
          {props.error ? (
            <p class="notice bad error-text" role="alert">
              {props.error}
            </p>
          ) : null}
          <form method="post" action="/dashboard/sign-in">
            <label>
              Token
              <input
                type="password"
                name="token"
                required
                autocomplete="off"
                spellcheck={false}
                autocapitalize="off"
              />
            </label>
            <button class="primary" type="submit">
              Sign in
            </button>
          </form>
        </div>
      </main>
    </Layout>
  );
}
