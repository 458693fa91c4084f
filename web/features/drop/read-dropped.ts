/**
 * Files the user dropped or picked, read into memory for `LocalApi`: session files
 * (`.jsonl`, `.json`) and archives (`.zip`). A dropped folder is walked (its relative paths
 * kept, so archives are found next to their session files).
 */
import type { LocalInput } from "../../api/local-api.js";

const WANTED = /\.(jsonl?|zip)$/i;
const MAX_FILES = 2000;

async function fromFile(file: File, path: string): Promise<LocalInput> {
  return { path, bytes: new Uint8Array(await file.arrayBuffer()), lastModified: file.lastModified };
}

/** Reads picked files (`<input type=file multiple>`). */
export async function readFileList(files: Iterable<File>): Promise<LocalInput[]> {
  return Promise.all([...files].filter((file) => WANTED.test(file.name)).map((file) => fromFile(file, file.name)));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

function readBatch(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

/** Reads a drop: files and folders (recursively), at most 2,000 files. */
export async function readDataTransfer(transfer: DataTransfer): Promise<LocalInput[]> {
  const entries = [...transfer.items].map((item) => (typeof item.webkitGetAsEntry === "function" ? item.webkitGetAsEntry() : null));
  if (entries.some((entry) => entry === null)) return readFileList([...transfer.files]);
  const inputs: LocalInput[] = [];
  const visit = async (entry: FileSystemEntry, prefix: string, depth: number): Promise<void> => {
    if (inputs.length >= MAX_FILES || depth > 16) return;
    if (entry.isFile) {
      if (WANTED.test(entry.name)) inputs.push(await fromFile(await entryFile(entry as FileSystemFileEntry), `${prefix}${entry.name}`));
      return;
    }
    if (!entry.isDirectory) return;
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    for (let batch = await readBatch(reader); batch.length > 0; batch = await readBatch(reader)) {
      for (const child of batch) await visit(child, `${prefix}${entry.name}/`, depth + 1);
    }
  };
  for (const entry of entries) if (entry !== null) await visit(entry, "", 0);
  return inputs;
}
