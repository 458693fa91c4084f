/** The handle between sidebar and main: drag it, or focus it and use ←/→ (width kept in localStorage). */
import { useRef } from "react";
import { SIDEBAR_WIDTH, getPreferences, setPreference } from "../state/preferences.js";

const clamp = (width: number) => Math.round(Math.min(SIDEBAR_WIDTH.max, Math.max(SIDEBAR_WIDTH.min, width)));

export function SidebarResizer() {
  const drag = useRef<{ startX: number; startWidth: number } | null>(null);
  return (
    <div
      className="sidebar-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the sidebar"
      aria-valuemin={SIDEBAR_WIDTH.min}
      aria-valuemax={SIDEBAR_WIDTH.max}
      aria-valuenow={getPreferences().sidebarWidth}
      tabIndex={0}
      onPointerDown={(event) => {
        drag.current = { startX: event.clientX, startWidth: getPreferences().sidebarWidth };
        event.currentTarget.setPointerCapture(event.pointerId);
      }}
      onPointerMove={(event) => {
        if (drag.current !== null) setPreference("sidebarWidth", clamp(drag.current.startWidth + event.clientX - drag.current.startX));
      }}
      onPointerUp={() => {
        drag.current = null;
      }}
      onDoubleClick={() => setPreference("sidebarWidth", SIDEBAR_WIDTH.default)}
      onKeyDown={(event) => {
        if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
        event.preventDefault();
        event.stopPropagation();
        setPreference("sidebarWidth", clamp(getPreferences().sidebarWidth + (event.key === "ArrowLeft" ? -16 : 16)));
      }}
    />
  );
}
