/** One labelled value of a fact row (`<dl className="run-facts">`): run overview, bundle panels. */
import type { ReactNode } from "react";

export function Fact({ label, value, danger = false }: { label: string; value: ReactNode; danger?: boolean }) {
  return (
    <div className="fact">
      <dt className="fact-label">{label}</dt>
      <dd className={`fact-value${danger ? " text-danger" : ""}`}>{value}</dd>
    </div>
  );
}
