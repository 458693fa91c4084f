/**
 * The viewer's public address (`--public-url https://tools.example/wink/`, issue 31): what
 * Host and Origin headers are checked against (`request-origin.ts`), and whose path is the
 * base path every route, asset, deep link and Location lives under. The router never sees
 * it: `app.ts` takes it off each URL before routing (`stripBasePath`), so routes are the same
 * with or without one. The local default has none: base path "/", loopback names only.
 */

/** The base path of the local default (no `--public-url`). */
export const LOCAL_BASE_PATH = "/";

export interface PublicAddress {
  /** The URL as given, normalised (`https://tools.example/wink/`). */
  readonly href: string;
  /** Scheme and host, what a browser sends as `Origin` (`https://tools.example`, no default port). */
  readonly origin: string;
  /** The host name, lower case, IPv6 in brackets (`tools.example`). */
  readonly hostname: string;
  /** The port a `Host` header names it with: the URL's, else the scheme's default ("443", "80"). */
  readonly port: string;
  /** The path, ending in "/" (`/wink/`): every route, asset and Location starts with it. */
  readonly basePath: string;
  readonly secure: boolean;
}

/** A `--public-url` that cannot be used, with a message that says why. */
export class PublicUrlError extends Error {
  override readonly name = "PublicUrlError";
}

/**
 * Parses and checks a public URL: http or https, a host, no user or password, no query nor
 * fragment, a path that ends in "/" and has no dot segments nor escapes that would change
 * its meaning when decoded. Throws `PublicUrlError`.
 */
export function parsePublicUrl(text: string): PublicAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PublicUrlError(`--public-url must be an absolute http:// or https:// URL, got ${text.slice(0, 200)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new PublicUrlError(`--public-url must be http:// or https://, got ${url.protocol}`);
  if (url.hostname === "") throw new PublicUrlError("--public-url must name a host");
  if (url.username !== "" || url.password !== "") throw new PublicUrlError("--public-url must not hold a user name or password");
  // `new URL` drops an empty "?" or "#": the text is checked too.
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(text)) throw new PublicUrlError("--public-url must not have a query or a fragment");
  const basePath = url.pathname;
  if (!basePath.endsWith("/")) throw new PublicUrlError(`--public-url's path must end with "/" (did you mean ${url.origin}${basePath}/ ?)`);
  // URL parsing resolved any dot segments already; an encoded slash or dot would reach the router decoded.
  if (/%(?:2f|2e|5c)/i.test(basePath) || basePath.includes("//")) throw new PublicUrlError(`--public-url's path must be plain segments, got ${basePath}`);
  const secure = url.protocol === "https:";
  return {
    href: url.href,
    origin: url.origin,
    hostname: url.hostname.toLowerCase(),
    port: url.port === "" ? (secure ? "443" : "80") : url.port,
    basePath,
    secure,
  };
}

/** The base path of `address`, or "/" without one. */
export function basePathOf(address: PublicAddress | undefined): string {
  return address?.basePath ?? LOCAL_BASE_PATH;
}

/** `path` (relative, or starting with "/") under `basePath`: `withBasePath("/wink/", "/auth/x")` is `/wink/auth/x`. */
export function withBasePath(basePath: string, path: string): string {
  return `${basePath}${path.replace(/^\/+/, "")}`;
}

/**
 * What the router is given for a request URL: the URL without the base path ("/wink/api/x"
 * → "/api/x"), `"bare"` for the base path without its slash ("/wink", "/wink?x", which are
 * redirected to it), or `"outside"` for anything else (404).
 */
export function stripBasePath(url: string, basePath: string): string | "bare" | "outside" {
  if (basePath === LOCAL_BASE_PATH) return url;
  if (url.startsWith(basePath)) return url.slice(basePath.length - 1);
  const bare = basePath.slice(0, -1);
  if (url === bare || url.startsWith(`${bare}?`)) return "bare";
  return "outside";
}
