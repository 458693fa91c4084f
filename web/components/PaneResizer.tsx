/** The handle between two panes: drag it, or focus it and use ←/→ (the width is a preference, kept in localStorage). */
import { useRef } from "react";
import { getPreferences, setPreference } from "../state/preferences.js";

type WidthKey = "sidebarWidth" | "changeListWidth" | "detailWidth";

export function PaneResizer({ preference, range, label, invert = false }: { preference: WidthKey; range: { min: number; max: number; default: number }; label: string; invert?: boolean }) {
  const drag = useRef<{ startX: number; startWidth: number } | null>(null);
  const clamp = (width: number) => Math.round(Math.min(range.max, Math.max(range.min, width)));
  const sign = invert ? -1 : 1;
  return (
    <div
      className="pane-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuemin={range.min}
      aria-valuemax={range.max}
      aria-valuenow={getPreferences()[preference]}
      tabIndex={0}
      onPointerDown={(event) => {
        drag.current = { startX: event.clientX, startWidth: getPreferences()[preference] };
        event.currentTarget.setPointerCapture(event.pointerId);
      }}
      onPointerMove={(event) => {
        if (drag.current !== null) setPreference(preference, clamp(drag.current.startWidth + sign * (event.clientX - drag.current.startX)));
      }}
      onPointerUp={() => {
        drag.current = null;
      }}
      onDoubleClick={() => setPreference(preference, range.default)}
      onKeyDown={(event) => {
        if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
        event.preventDefault();
        event.stopPropagation();
        setPreference(preference, clamp(getPreferences()[preference] + sign * (event.key === "ArrowLeft" ? -16 : 16)));
      }}
    />
  );
}
