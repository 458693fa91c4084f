/**
 * A JSON value shown with the slices view's tree (type glyphs, expand to depth, markdown
 * rendered or raw, long strings folded), with its own open/closed state and markdown
 * pop-out: what every bundle panel uses for the members it shows as written.
 */
import { useCallback, useState } from "react";
import { Modal } from "../../components/Modal.js";
import { JsonTree } from "../slices/JsonTree.js";
import { useTreeState } from "../slices/tree-state.js";

export function ValueTree({ value, label, path, depth = 2 }: { value: unknown; label: string; path: string; depth?: number }) {
  const tree = useTreeState(depth);
  const [popOut, setPopOut] = useState<{ title: string; html: string } | null>(null);
  const open = useCallback((title: string, html: string) => setPopOut({ title, html }), []);
  return (
    <>
      <JsonTree value={value} path={path} label={label} tree={tree} keyNeedle="" onPopOut={open} />
      {popOut !== null ? (
        <Modal title={popOut.title} onClose={() => setPopOut(null)} wide>
          {/* Sanitised by JsonTree's markdown block before it reaches here. */}
          <div className="markdown-body" dangerouslySetInnerHTML={{ __html: popOut.html }} />
        </Modal>
      ) : null}
    </>
  );
}
