/** How the app changes the source it shows: files opened in the page, or back to the server. */
import type { Api } from "../api/api.js";

export interface SourceSwitch {
  /** Shows files opened in the page (drop or file dialog). */
  openLocal(api: Api): void;
  /** Back to the server, when the app was served by one. */
  backToServer: (() => void) | null;
}
