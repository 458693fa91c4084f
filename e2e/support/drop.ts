/** Drops files from a directory onto the page, as a user dragging them from a file manager would. */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";

export async function dropFiles(page: Page, dir: string, names: readonly string[]): Promise<void> {
  const files = await Promise.all(names.map(async (name) => ({ name, base64: (await readFile(path.join(dir, name))).toString("base64") })));
  // Runs in the page (a string, so this Node-typed file needs no DOM types).
  await page.evaluate(`(() => {
    const transfer = new DataTransfer();
    for (const item of ${JSON.stringify(files)}) {
      const bytes = Uint8Array.from(atob(item.base64), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], item.name));
    }
    const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
    for (const type of ["dragenter", "dragover", "drop"]) document.body.dispatchEvent(new DragEvent(type, init));
  })()`);
}
