import { formatIst } from "@/lib/ist";

/** A dense table's IST time on two lines, date over time, so the column stays narrow. */
export function IstStamp({ at }: { at: Date | string }) {
  const text = formatIst(at, true);
  const cut = text.lastIndexOf(", ");
  if (cut < 0) return <>{text}</>;
  return (
    <>
      <span className="block">{text.slice(0, cut)}</span>
      <span className="block text-xs text-slate-500 tabular-nums">{text.slice(cut + 2)}</span>
    </>
  );
}
