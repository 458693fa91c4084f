/**
 * A real OpenID Provider (`oidc-provider` 8) on loopback for tests, with one confidential
 * client and a tiny login page in place of devInteractions: a form naming the user to sign
 * in as (or Cancel, which answers access_denied). Consent is granted by the login itself.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestUser {
  readonly email: string;
  readonly groups: readonly string[];
}

export interface TestProvider {
  readonly issuer: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers the relying party's callback; the provider answers only after this. */
  start(redirectUri: URL): void;
  close(): Promise<void>;
}

export async function startTestProvider(users: Readonly<Record<string, TestUser>>): Promise<TestProvider> {
  let handler: http.RequestListener = (_request, response) => response.writeHead(503).end();
  const server = http.createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const clientId = "wink-debug";
  const clientSecret = "test-client-secret-that-is-long-enough";
  return {
    issuer,
    clientId,
    clientSecret,
    start(redirectUri) {
      const provider = new Provider(issuer.href.replace(/\/$/, ""), {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri.href], grant_types: ["authorization_code"], response_types: ["code"] }],
        scopes: ["openid", "email", "profile", "groups"],
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["preferred_username"], groups: ["groups"] },
        cookies: { keys: ["test-cookie-key"] },
        features: { devInteractions: { enabled: false } },
        interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
        findAccount: (_context, sub) => {
          const user = users[sub];
          return user === undefined ? undefined : { accountId: sub, claims: () => ({ sub, email: user.email, email_verified: true, preferred_username: sub, groups: [...user.groups] }) };
        },
      });
      const callback = provider.callback();
      handler = (request, response) => {
        const match = /^\/interaction\/([\w-]+)$/.exec((request.url ?? "").split("?")[0] ?? "");
        if (match === null) return void callback(request, response);
        void interact(provider, request, response).catch(() => response.writeHead(500).end());
      };
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function interact(provider: Provider, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (request.method !== "POST") {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><title>Test provider</title><form method="post"><label>User <input name="user"></label><button name="action" value="login">Sign in</button><button name="action" value="cancel">Cancel</button></form>`);
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  if (form.get("action") === "cancel") {
    await provider.interactionFinished(request, response, { error: "access_denied", error_description: "the user cancelled" }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = form.get("user") ?? "";
  const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}
