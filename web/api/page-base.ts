/**
 * The base path the server serves the viewer under (`--public-url https://host/wink/`), as it
 * wrote it into the page (`<meta name="wink-base-path">`, server/plugins/spa-fallback.ts):
 * API calls and the event stream start with it. No meta (Vite's dev server, a test, the
 * server-side render): the origin's root.
 */

/** The base path without its trailing slash ("" at the root, "/wink" under `/wink/`), to put before "/api/…". */
export function pageBasePath(): string {
  if (typeof document === "undefined") return "";
  const content = document.querySelector('meta[name="wink-base-path"]')?.getAttribute("content") ?? "/";
  // Only a path of this origin: never a scheme-relative "//host" nor an absolute URL.
  if (!content.startsWith("/") || content.startsWith("//")) return "";
  return content.replace(/\/+$/, "");
}
