import { verifyPan } from "@/server/services/identity/verify-pan";
import { v1Ok } from "@/server/rest/envelope";
import { bearerProcedure } from "@/server/trpc/procedures";
import { verifyPanInput, verifyPanMeta, verifyPanOutput } from "@/server/api/identity/verify-pan.schema";

export const verifyPanProcedure = bearerProcedure
  .meta(verifyPanMeta)
  .input(verifyPanInput)
  .output(verifyPanOutput)
  .mutation(async ({ ctx, input }) => {
    const rest = ctx.rest!;
    const data = await verifyPan(ctx.services.providers[rest.auth!.mode].pan, input.pan, input.name ?? null, rest);
    return v1Ok(data);
  });
