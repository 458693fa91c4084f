/** A dialog over the page: Esc or the backdrop closes it; focus moves into it. */
import { useEffect, useRef } from "react";
import type { ReactNode } from "react";
import { useKeymap } from "../state/shortcuts.js";
import { Icon } from "./Icon.js";

export function Modal({ title, onClose, children, wide = false, className = "" }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean; className?: string }) {
  const panel = useRef<HTMLDivElement>(null);
  useKeymap({ escape: () => onClose() });
  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    panel.current?.focus();
    return () => previous?.focus();
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div className={`modal${wide ? " modal-wide" : ""}${className === "" ? "" : ` ${className}`}`} role="dialog" aria-modal="true" aria-label={title} tabIndex={-1} ref={panel}>
        {/* Not a <header>: outside <main> it would be a second banner landmark beside the app's (axe: landmark-unique). */}
        <div className="modal-header">
          <h2>{title}</h2>
          <button type="button" className="icon-btn" onClick={onClose} aria-label="Close">
            <Icon name="x" />
          </button>
        </div>
        {/* Focusable: a long body scrolls, and the keyboard must reach it (axe: scrollable-region-focusable). */}
        <div className="modal-body" tabIndex={0}>
          {children}
        </div>
      </div>
    </div>
  );
}
