/**
 * Drag a `.jsonl` (with its `.fs.zip` archives) anywhere onto the page, or pick files, to
 * view them without a server round trip: they are read and parsed in this tab only.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Api } from "../../api/api.js";
import { errorMessage } from "../../components/feedback.js";
import { showToast } from "../../state/toasts.js";
import type { LocalInput } from "../../api/local-api.js";

async function openInputs(inputs: LocalInput[], label: string): Promise<Api> {
  const { LocalApi } = await import("../../api/local-api.js");
  const api = LocalApi.open(inputs, label);
  if (api.sessionPaths.length === 0) throw new Error("No session file (.jsonl or .json) among them");
  return api;
}

export function useLocalOpener(onOpen: (api: Api) => void): (inputs: Promise<LocalInput[]>) => void {
  return useCallback(
    (pending) => {
      showToast("Reading the files…");
      pending
        .then((inputs) => openInputs(inputs, inputs.length === 1 ? (inputs[0]?.path ?? "dropped file") : `${inputs.length} dropped files`))
        .then(onOpen, (error: unknown) => showToast(`Cannot open these files: ${errorMessage(error)}`, "error"));
    },
    [onOpen],
  );
}

/** Full-page drop target (shown while dragging files over the window). */
export function DropZone({ onOpen }: { onOpen: (api: Api) => void }) {
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const open = useLocalOpener(onOpen);
  useEffect(() => {
    const hasFiles = (event: DragEvent) => event.dataTransfer?.types.includes("Files") === true;
    const enter = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      depth.current++;
      setDragging(true);
    };
    const over = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer !== null) event.dataTransfer.dropEffect = "copy";
    };
    const leave = () => {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setDragging(false);
    };
    const drop = (event: DragEvent) => {
      if (!hasFiles(event) || event.dataTransfer === null) return;
      event.preventDefault();
      depth.current = 0;
      setDragging(false);
      const transfer = event.dataTransfer;
      open(import("./read-dropped.js").then((module) => module.readDataTransfer(transfer)));
    };
    window.addEventListener("dragenter", enter);
    window.addEventListener("dragover", over);
    window.addEventListener("dragleave", leave);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragenter", enter);
      window.removeEventListener("dragover", over);
      window.removeEventListener("dragleave", leave);
      window.removeEventListener("drop", drop);
    };
  }, [open]);
  if (!dragging) return null;
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div className="drop-card">
        <strong>Drop session files to view them here</strong>
        <span>.jsonl with its .fs.zip archives, or a folder of them — read in this tab, never uploaded</span>
      </div>
    </div>
  );
}
