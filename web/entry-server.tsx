/**
 * The landing page rendered on the server (built by `npm run build` into dist/web-ssr, loaded
 * by server/plugins/server-render.ts): the same `<Root>` the browser renders first, given the
 * answer `/api/run` gives, so the markup is exactly what the app's first render produces and
 * the browser hydrates it (web/main.tsx) instead of drawing the page again. Only the landing
 * URL (`/` with no query) is rendered here: every other URL starts in the browser.
 */
import { renderToString } from "react-dom/server";
import type { RunResponse } from "./api/api.js";
import { HttpApi } from "./api/http-api.js";
import { Root } from "./app/Root.js";
import { setRenderedPathname } from "./state/url-store.js";

/**
 * `<div id="root">`'s inner HTML for the landing page of `run` (the newest run), served at
 * `basePath` (`--public-url`'s path, "/" by default); null for a
 * debug bundle's run, whose overview waits for a lazy chunk the server would leave as a
 * fallback for the browser to redo (the server then sends the page unrendered).
 */
export function renderLanding(run: RunResponse, basePath = "/"): string | null {
  if (run.source.kind === "bundle") return null;
  // The landing page's own path, which the browser's first render writes its links with.
  setRenderedPathname(basePath);
  // Nothing is fetched while rendering on the server: the api only answers `kind` and `label`.
  return renderToString(<Root initialApi={new HttpApi()} landingRun={run} />);
}
