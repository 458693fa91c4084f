/** What an item card's header says about the item: a name and, for tool calls, the outcome. */
import { isJsonObject, ownValue } from "../../../shared/session/browser.js";

export interface ItemSummary {
  readonly title: string | null;
  readonly success: boolean | null;
  readonly createdAt: string | null;
}

export function itemSummary(item: unknown): ItemSummary {
  if (!isJsonObject(item)) return { title: null, success: null, createdAt: null };
  const name = ownValue(item, "name") ?? ownValue(item, "prompt_name") ?? ownValue(item, "title");
  const result = ownValue(item, "result");
  const success = isJsonObject(result) ? ownValue(result, "success") : undefined;
  const createdAt = ownValue(item, "created_at");
  return {
    title: typeof name === "string" ? name : null,
    success: typeof success === "boolean" ? success : null,
    createdAt: typeof createdAt === "string" ? createdAt : null,
  };
}
