/** A virtualised diff from hunks alone (slice diffs; files too large to load whole). */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useImperativeHandle, useMemo, useRef } from "react";
import type { ReactNode } from "react";
import type { HunksViewProps } from "../editor/MergeDiff.js";
import { splitRows, unifiedRows } from "./hunk-rows.js";
import type { SplitCell } from "./hunk-rows.js";

const ROW = 20;

export interface HunkListProps extends HunksViewProps {
  /** What the list shows (its name for a screen reader, which reaches it by Tab to scroll it). */
  readonly label: string;
}

export function HunkList({ hunks, layout, handle, line, side, onLineClick, label }: HunkListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const unified = useMemo(() => (layout === "unified" ? unifiedRows(hunks) : []), [hunks, layout]);
  const split = useMemo(() => (layout === "split" ? splitRows(hunks) : []), [hunks, layout]);
  const count = layout === "unified" ? unified.length : split.length;
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 20 });
  const hunkStarts = useMemo(() => (layout === "unified" ? unified.map((row, index) => (row.kind === "hunk" ? index : -1)) : split.map((row, index) => (row.hunk !== undefined ? index : -1))).filter((index) => index !== -1), [layout, unified, split]);

  const targetIndex = useMemo(() => {
    if (line === undefined) return -1;
    if (layout === "unified") return unified.findIndex((row) => (side === "base" ? row.oldLine === line && row.kind !== "add" : row.newLine === line));
    return split.findIndex((row) => (side === "base" ? row.left?.line === line : row.right?.line === line));
  }, [line, side, layout, unified, split]);
  useEffect(() => {
    if (targetIndex !== -1) virtualizer.scrollToIndex(targetIndex, { align: "center" });
  }, [targetIndex, virtualizer]);
  const number = (value: number | null, which: "base" | "target") =>
    value === null ? (
      <span className="ln" />
    ) : onLineClick === undefined ? (
      <span className="ln">{value}</span>
    ) : (
      <button type="button" className="ln ln-link" onClick={() => onLineClick(value, which)} aria-label={`Link to line ${value} of the ${which}`} tabIndex={-1}>
        {value}
      </button>
    );

  useImperativeHandle(handle, () => ({
    next: () => {
      const top = virtualizer.scrollOffset ?? 0;
      const next = hunkStarts.find((index) => index * ROW > top + 1);
      if (next !== undefined) virtualizer.scrollToIndex(next, { align: "start" });
    },
    previous: () => {
      const top = virtualizer.scrollOffset ?? 0;
      const previous = [...hunkStarts].reverse().find((index) => index * ROW < top - 1);
      if (previous !== undefined) virtualizer.scrollToIndex(previous, { align: "start" });
    },
  }));

  return (
    // A tab stop: its line numbers are not (tabIndex -1), so without it a keyboard could not scroll a diff that overflows (axe scrollable-region-focusable).
    <div className={`hunk-list layout-${layout}`} ref={scroller} tabIndex={0} role="group" aria-label={label} data-testid="hunk-list">
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const style = { transform: `translateY(${item.start}px)`, height: ROW };
          if (layout === "unified") {
            const row = unified[item.index];
            if (row === undefined) return null;
            return (
              <div key={item.index} className={`hunk-row row-${row.kind}${item.index === targetIndex ? " is-target" : ""}`} style={style} data-testid="hunk-row">
                {number(row.oldLine, "base")}
                {number(row.newLine, "target")}
                <span className="mark">{row.kind === "add" ? "+" : row.kind === "del" ? "−" : ""}</span>
                <span className="code">{row.text}</span>
              </div>
            );
          }
          const row = split[item.index];
          if (row === undefined) return null;
          if (row.hunk !== undefined) {
            return (
              <div key={item.index} className="hunk-row row-hunk" style={style}>
                <span className="code">{row.hunk}</span>
              </div>
            );
          }
          return (
            <div key={item.index} className={`hunk-row split${item.index === targetIndex ? " is-target" : ""}`} style={style} data-testid="hunk-row">
              <Cell cell={row.left} side="left" number={number} />
              <Cell cell={row.right} side="right" number={number} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

function Cell({ cell, side, number }: { cell: SplitCell | null; side: "left" | "right"; number: (value: number | null, which: "base" | "target") => ReactNode }) {
  return (
    <span className={`split-cell ${side} row-${cell?.kind ?? "empty"}`}>
      {number(cell?.line ?? null, side === "left" ? "base" : "target")}
      <span className="code">{cell?.text ?? ""}</span>
    </span>
  );
}
