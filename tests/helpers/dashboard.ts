import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import { ZodError } from "zod";
import { AppError } from "@/server/errors";
import type { AppServices } from "@/server/services";
import type { Context, SessionUser } from "@/server/trpc/init";
import type { TestServer } from "./server";

/**
 * The dashboard's tRPC context of one call, for `dashboardRouter.createCaller`: a request from our own
 * pages (same origin) and from 127.0.0.1 unless `over` says otherwise.
 */
export function dashboardContext(services: AppServices, session: SessionUser | null, over: Partial<Pick<Context, "clientIp" | "sameOrigin">> = {}): Context {
  return { services, session, clientIp: "127.0.0.1", sameOrigin: true, ...over };
}

/** The session of a signed-in merchant (as createMerchant or a fixture returns the merchant). */
export function merchantSession(m: { merchantId: string; email: string }): SessionUser {
  return { id: m.merchantId, email: m.email, role: "merchant" };
}

/**
 * How a dashboard call failed: the tRPC code, for a service error its registry code, the field(s) a
 * service or validation error names, and the message. The test fails if the call succeeds.
 */
export async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCError);
    const e = err as TRPCError;
    const cause = e.cause;
    const appError = cause instanceof AppError ? cause : undefined;
    const fields = cause instanceof ZodError ? cause.issues.map((i) => i.path.join(".")) : appError?.field ? [appError.field] : [];
    return { code: e.code, appCode: appError?.code, fields, message: e.message };
  }
  throw new Error("expected the call to fail");
}

/**
 * The app's services and a real server on one database of `target`: the suite's SQLite file
 * (DATABASE_URL, set before the app was imported) or a fresh migrated PostgreSQL database.
 */
export async function openDashboardTarget(target: "sqlite" | "postgresql"): Promise<{ services: AppServices; server: TestServer; close: () => Promise<void> }> {
  const { migrateTestDatabase } = await import("./test-db");
  const { startServer } = await import("./server");
  const { createServices, getServices } = await import("@/server/services");
  const { getConfig } = await import("@/server/config");
  if (target === "sqlite") {
    await migrateTestDatabase(process.env.DATABASE_URL!);
    const server = await startServer({ databaseUrl: process.env.DATABASE_URL! });
    return { services: getServices(), server, close: async () => void (await server.stop()) };
  }
  const { startPostgres } = await import("./postgres");
  const pg = await startPostgres({ migrated: true });
  await migrateTestDatabase(pg.url);
  const services = createServices({ ...getConfig(), databaseUrl: pg.url });
  const server = await startServer({ databaseUrl: pg.url });
  return {
    services,
    server,
    close: async () => {
      await server.stop();
      await services.db.$disconnect();
      await pg.stop();
    },
  };
}
