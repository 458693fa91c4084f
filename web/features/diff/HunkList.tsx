/** A virtualised diff from hunks alone (slice diffs; files too large to load whole). */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useImperativeHandle, useMemo, useRef } from "react";
import type { Ref } from "react";
import type { HunkResponse } from "../../api/api.js";
import type { MergeDiffHandle } from "../../editor/MergeDiff.js";
import { splitRows, unifiedRows } from "./hunk-rows.js";
import type { SplitCell } from "./hunk-rows.js";

const ROW = 20;

export function HunkList({ hunks, layout, handle }: { hunks: readonly HunkResponse[]; layout: "split" | "unified"; handle?: Ref<MergeDiffHandle> }) {
  const scroller = useRef<HTMLDivElement>(null);
  const unified = useMemo(() => (layout === "unified" ? unifiedRows(hunks) : []), [hunks, layout]);
  const split = useMemo(() => (layout === "split" ? splitRows(hunks) : []), [hunks, layout]);
  const count = layout === "unified" ? unified.length : split.length;
  const virtualizer = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 20 });
  const hunkStarts = useMemo(() => (layout === "unified" ? unified.map((row, index) => (row.kind === "hunk" ? index : -1)) : split.map((row, index) => (row.hunk !== undefined ? index : -1))).filter((index) => index !== -1), [layout, unified, split]);

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
    <div className={`hunk-list layout-${layout}`} ref={scroller} data-testid="hunk-list">
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const style = { transform: `translateY(${item.start}px)`, height: ROW };
          if (layout === "unified") {
            const row = unified[item.index];
            if (row === undefined) return null;
            return (
              <div key={item.index} className={`hunk-row row-${row.kind}`} style={style}>
                <span className="ln">{row.oldLine ?? ""}</span>
                <span className="ln">{row.newLine ?? ""}</span>
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
            <div key={item.index} className="hunk-row split" style={style}>
              <Cell cell={row.left} side="left" />
              <Cell cell={row.right} side="right" />
            </div>
          );
        })}
      </div>
    </div>
  );
}

function Cell({ cell, side }: { cell: SplitCell | null; side: "left" | "right" }) {
  return (
    <span className={`split-cell ${side} row-${cell?.kind ?? "empty"}`}>
      <span className="ln">{cell?.line ?? ""}</span>
      <span className="code">{cell?.text ?? ""}</span>
    </span>
  );
}
