import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  serverExternalPackages: ["better-sqlite3", "pg", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "@prisma/client", "@prisma/schema-engine-wasm"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
