/**
 * The landing page drawn on the server: the web app's own components rendered to HTML by the
 * built renderer (`dist/web-ssr/entry-server.cjs`, from web/entry-server.tsx), so the failures
 * are on screen as soon as the page and its stylesheet arrive, before the app's script has
 * been compiled; the app then hydrates that markup (web/main.tsx). The server never imports
 * the web app's sources: it loads the built module by path, as it serves dist/web.
 *
 * Nothing here may fail a request: without the module (running from source, or an old
 * build) or when rendering throws, the page is sent as before.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

/** The id of the inline `<script type="application/json">` holding the run the page was rendered from. */
export const LANDING_RUN_ID = "wink-landing-run";

/** What web/entry-server.tsx exports. */
interface LandingRendererModule {
  /** null: this run is not rendered on the server. */
  /** `basePath`: where the page is served (its links start with it); an older build ignores it. */
  renderLanding(run: unknown, basePath?: string): string | null;
}

/**
 * JSON text made safe inside `<script>`: `<`, `>` and `&` can only occur in JSON strings, where
 * `\u003c` (etc.) means the same character, so session text can never close the element or
 * open a comment; U+2028/2029 are escaped for old parsers that read them as line ends.
 */
export function jsonForScript(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `index.html` with the rendered markup inside `<div id="root">` and the run it was rendered from inline; null when the page has no empty root to fill. */
export function withRenderedLanding(indexHtml: string, markup: string, runJson: string): string | null {
  const root = '<div id="root"></div>';
  if (!indexHtml.includes(root) || !indexHtml.includes("</body>")) return null;
  const data = `<script type="application/json" id="${LANDING_RUN_ID}">${jsonForScript(runJson)}</script>`;
  return indexHtml.replace(root, () => `<div id="root">${markup}</div>`).replace("</body>", () => `  ${data}\n  </body>`);
}

/** The renderer module at `modulePath`, loaded once on first use (or by `warm`); null when it is missing or does not load. */
export class LandingRenderer {
  private loading: Promise<LandingRendererModule | null> | null = null;

  constructor(private readonly modulePath: string | null) {}

  /** Starts loading the module (if there is one) without waiting for it. */
  warm(): void {
    void this.module();
  }

  module(): Promise<LandingRendererModule | null> {
    this.loading ??= this.load();
    return this.loading;
  }

  // async: the first caller does not wait for a load it did not start in this tick.
  private async load(): Promise<LandingRendererModule | null> {
    if (this.modulePath === null || !existsSync(this.modulePath)) return null;
    try {
      // CommonJS, required: the bundled CLI runs as a vm.Script, which has no import().
      const loaded = createRequire(import.meta.url)(this.modulePath) as Partial<LandingRendererModule>;
      return typeof loaded.renderLanding === "function" ? (loaded as LandingRendererModule) : null;
    } catch {
      return null;
    }
  }

  /** The landing page's markup for the run answer `runJson` (`/api/run`'s body) served at `basePath`; null when there is no renderer or it renders no such run. Throws what rendering throws. */
  async render(runJson: string, basePath = "/"): Promise<string | null> {
    const renderer = await this.module();
    return renderer === null ? null : renderer.renderLanding(JSON.parse(runJson), basePath);
  }
}
