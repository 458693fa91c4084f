/**
 * The CLI's `--auth oidc`: the sign-in method and session cookies built from the command's
 * options, with the secrets read from files or the environment (never argv, where `ps`
 * shows them); and `SignInOptionsError`, how every `--auth` method refuses its options (exit 2).
 * The other methods are built beside their own code: `--auth token` in `token-sign-in.ts`
 * (its token and cookie secret read the same way), `--auth proxy` in `proxy-sign-in.ts`
 * (no secret to read).
 */
import { OidcSignIn } from "./oidc.js";
import { readSecret } from "./secret-source.js";
import { SignedSessionCookies, readSessionSecret } from "./session-cookie.js";
import type { SignInContext, SignInMethod } from "./sign-in-method.js";

export interface OidcCliOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecretFile: string | undefined;
  readonly allowedDomains: readonly string[];
  readonly allowedGroups: readonly string[];
  readonly sessionSecretFile: string | undefined;
}

/** A refusal of the sign-in options, for the CLI to print (exit 2). */
export class SignInOptionsError extends Error {}

/** `--auth oidc`'s method and session cookies for a viewer reached at `publicBase` (absolute, ending in "/"). */
export function oidcSignIn(options: OidcCliOptions, env: NodeJS.ProcessEnv, publicBase: URL): { method: SignInMethod; context: SignInContext } {
  let issuer: URL;
  try {
    issuer = new URL(options.issuer);
  } catch {
    throw new SignInOptionsError(`--oidc-issuer is not a URL: ${options.issuer}`);
  }
  if (options.allowedDomains.length === 0 && options.allowedGroups.length === 0) throw new SignInOptionsError("--auth oidc needs --oidc-allowed-domains or --oidc-allowed-groups (who may sign in)");
  let clientSecret: string | undefined;
  try {
    clientSecret = readSecret("--oidc-client-secret-file", options.clientSecretFile, env, "WINK_DEBUG_OIDC_CLIENT_SECRET");
  } catch (error) {
    throw new SignInOptionsError(error instanceof Error ? error.message : String(error));
  }
  if (clientSecret === undefined) throw new SignInOptionsError("--auth oidc needs the client secret: --oidc-client-secret-file FILE or WINK_DEBUG_OIDC_CLIENT_SECRET");
  let secret: Buffer;
  try {
    secret = readSessionSecret(options.sessionSecretFile, env, false).secret;
  } catch (error) {
    throw new SignInOptionsError(error instanceof Error ? error.message : String(error));
  }
  const basePath = publicBase.pathname;
  const sessions = new SignedSessionCookies({ secret, basePath, secure: publicBase.protocol === "https:" });
  const method = new OidcSignIn({ issuer, clientId: options.clientId, clientSecret, allowedDomains: options.allowedDomains, allowedGroups: options.allowedGroups, redirectUri: new URL("auth/oidc/callback", publicBase), secret });
  return { method, context: { sessions, basePath } };
}
