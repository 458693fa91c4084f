/** The handle between sidebar and main (see PaneResizer). */
import { PaneResizer } from "../components/PaneResizer.js";
import { SIDEBAR_WIDTH } from "../state/preferences.js";

export function SidebarResizer() {
  return <PaneResizer preference="sidebarWidth" range={SIDEBAR_WIDTH} label="Resize the sidebar" />;
}
