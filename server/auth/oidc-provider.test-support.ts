/**
 * A real OpenID Provider (`oidc-provider` 8) on loopback for tests, with one confidential
 * client and a tiny login page in place of devInteractions: a form naming the user to sign
 * in as (or Cancel, which answers access_denied). Consent is granted by the login itself,
 * unless `consent` asks for a consent page of its own after it (Allow, or Deny), as a
 * company provider shows on a first sign-in to an app.
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

export interface TestProviderOptions {
  /** A consent page after the login page (default: the login grants consent). */
  readonly consent?: boolean;
}

export async function startTestProvider(users: Readonly<Record<string, TestUser>>, options: TestProviderOptions = {}): Promise<TestProvider> {
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
        void interact(provider, request, response, options.consent === true).catch(() => response.writeHead(500).end());
      };
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const PAGE_STYLE = "font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5";

function providerPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} – Test provider</title><link rel="icon" href="data:,"></head><body style="${PAGE_STYLE}"><main><h1>${title}</h1>${body}</main></body></html>`;
}

async function readForm(request: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

async function interact(provider: Provider, request: http.IncomingMessage, response: http.ServerResponse, askConsent: boolean): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  const clientId = String(details.params.client_id);
  if (askConsent && details.prompt.name === "consent") {
    if (request.method !== "POST") {
      const scopes = String(details.params.scope).split(" ").join(", ");
      response
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(providerPage("Allow access?", `<p><strong>${clientId}</strong> asks to see: ${scopes}.</p><form method="post"><button name="action" value="allow">Allow</button> <button name="action" value="deny">Deny</button></form>`));
      return;
    }
    const form = await readForm(request);
    if (form.get("action") !== "allow") {
      await provider.interactionFinished(request, response, { error: "access_denied", error_description: "the user denied consent" }, { mergeWithLastSubmission: false });
      return;
    }
    const accountId = details.session?.accountId ?? "";
    const grant = new provider.Grant({ accountId, clientId });
    grant.addOIDCScope(String(details.params.scope));
    await provider.interactionFinished(request, response, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    return;
  }
  if (request.method !== "POST") {
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(providerPage("Sign in", `<form method="post"><p><label>User <input name="user" autocomplete="username"></label></p><button name="action" value="login">Sign in</button> <button name="action" value="cancel">Cancel</button></form>`));
    return;
  }
  const form = await readForm(request);
  if (form.get("action") === "cancel") {
    await provider.interactionFinished(request, response, { error: "access_denied", error_description: "the user cancelled" }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = form.get("user") ?? "";
  if (askConsent) {
    // The provider comes back to /interaction/ for consent: this grant has no scopes yet.
    await provider.interactionFinished(request, response, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId, clientId });
  grant.addOIDCScope(String(details.params.scope));
  const grantId = await grant.save();
  await provider.interactionFinished(request, response, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}
