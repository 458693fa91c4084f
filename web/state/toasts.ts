/** Short notifications (2.5 s), like the original's toasts. */
import { useSyncExternalStore } from "react";

export interface Toast {
  readonly id: number;
  readonly message: string;
  readonly tone: "info" | "error";
}

let toasts: readonly Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function showToast(message: string, tone: Toast["tone"] = "info"): void {
  const toast = { id: nextId++, message, tone };
  toasts = [...toasts.slice(-3), toast];
  emit();
  setTimeout(() => {
    toasts = toasts.filter((candidate) => candidate.id !== toast.id);
    emit();
  }, 2500);
}

export function useToasts(): readonly Toast[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => toasts,
    () => toasts,
  );
}
