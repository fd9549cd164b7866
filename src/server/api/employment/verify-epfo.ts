import { verifyEpfo } from "@/server/services/employment/verify-epfo";
import { v1OkNoTimestamp } from "@/server/rest/envelope";
import { bearerProcedure } from "@/server/trpc/procedures";
import { verifyEpfoInput, verifyEpfoMeta, verifyEpfoOutput } from "@/server/api/employment/verify-epfo.schema";

export const verifyEpfoProcedure = bearerProcedure
  .meta(verifyEpfoMeta)
  .input(verifyEpfoInput)
  .output(verifyEpfoOutput)
  .mutation(async ({ ctx, input }) => {
    const rest = ctx.rest!;
    const lookup = input.uan !== undefined ? { uan: input.uan } : { pfNumber: input.pf_number! };
    const data = await verifyEpfo(ctx.services.providers[rest.auth!.mode].epfo, lookup, rest);
    return v1OkNoTimestamp(data);
  });
