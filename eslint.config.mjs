import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

// The layering of design.md, as rules: a slip fails `npm test` instead of waiting for a review.

/** `x.db.model…`, `db.model…`, `tx.model…`: a Prisma call outside the service layer. */
const prismaAccess = [
  {
    selector: "MemberExpression[object.type='MemberExpression'][object.property.name='db']",
    message: "Only services (src/server/services) and src/server/db touch Prisma: call a service instead.",
  },
  {
    selector: "MemberExpression[object.type='Identifier'][object.name=/^(db|tx)$/][property.name=/^(\\$|[a-z])/]",
    message: "Only services (src/server/services) and src/server/db touch Prisma: call a service instead.",
  },
];

/** The dialect modules: only src/server/db knows which database it talks to. */
const dialect = {
  paths: [
    { name: "better-sqlite3", message: "Only src/server/db knows the database dialect." },
    { name: "pg", message: "Only src/server/db knows the database dialect." },
    { name: "@prisma/adapter-better-sqlite3", message: "Only src/server/db knows the database dialect." },
    { name: "@prisma/adapter-pg", message: "Only src/server/db knows the database dialect." },
  ],
  patterns: [{ group: ["**/generated/prisma*", "**/generated/prisma*/**"], message: "Import the client from @/server/db/client." }],
};

const config = [
  {
    ignores: [".next/**", "node_modules/**", "src/generated/**", "test-results/**", "playwright-report/**", "bench-results/**", "data/**", "next-env.d.ts"],
  },
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring away a field, an ignored argument).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      // Tests and adapters read untyped JSON and library internals.
      "@typescript-eslint/no-explicit-any": "off",
      // These two serve the React Compiler, which this app does not use: a countdown seeded from
      // Date.now() at render and a form reset when its input changes are deliberate here.
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/purity": "off",
      // Merchant logos are arbitrary https URLs; next/image would need every host configured.
      "@next/next/no-img-element": "off",
    },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/server/db/**"],
    rules: { "no-restricted-imports": ["error", dialect] },
  },
  {
    // Services know no HTTP, no REST door, no tRPC and no routers. (Providers may call out over HTTP:
    // they are the adapters to upstreams and to merchants' webhook endpoints.)
    files: ["src/server/services/**/*.ts", "src/server/providers/**/*.ts", "src/server/jobs/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: dialect.paths,
          patterns: [
            ...dialect.patterns,
            {
              group: ["@/server/rest", "@/server/rest/**", "@/server/trpc", "@/server/trpc/**", "@/server/api", "@/server/api/**", "@/server/http/**"],
              message: "Services know no HTTP: they take plain arguments and throw AppError.",
            },
            { group: ["next", "next/**", "@trpc/**"], message: "Services know no HTTP." },
          ],
        },
      ],
    },
  },
  {
    files: ["src/server/services/**/*.ts", "src/server/jobs/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            ...dialect.paths,
            { name: "node:http", message: "Services know no HTTP." },
            { name: "node:https", message: "Services know no HTTP: outbound calls go through a provider." },
          ],
          patterns: [
            ...dialect.patterns,
            {
              group: ["@/server/rest", "@/server/rest/**", "@/server/trpc", "@/server/trpc/**", "@/server/api", "@/server/api/**", "@/server/http/**"],
              message: "Services know no HTTP: they take plain arguments and throw AppError.",
            },
            { group: ["next", "next/**", "@trpc/**"], message: "Services know no HTTP." },
          ],
        },
      ],
    },
  },
  {
    // Doors (pages, routes, routers, the REST door, tRPC, the operator CLI) call services; they never query Prisma themselves.
    files: [
      "scripts/cli.ts",
      "src/app/**/*.{ts,tsx}",
      "src/server/api/**/*.ts",
      "src/server/trpc/**/*.ts",
      "src/server/rest/**/*.ts",
      "src/server/http/**/*.ts",
      "src/server/auth/**/*.ts",
      "src/components/**/*.{ts,tsx}",
    ],
    rules: { "no-restricted-syntax": ["error", ...prismaAccess] },
  },
  {
    // Pages and routes call services, never a router's internals (the router type is for the client).
    files: ["src/app/**/*.{ts,tsx}", "src/components/**/*.{ts,tsx}"],
    ignores: ["src/app/api/trpc/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: dialect.paths,
          patterns: [
            ...dialect.patterns,
            { group: ["@/server/api/**", "!@/server/api/dashboard/router"], message: "Pages call services, not routers." },
            {
              group: ["@/server/api/dashboard/router"],
              allowTypeImports: true,
              message: "Only the router's type may be imported by pages (for the tRPC client).",
            },
          ],
        },
      ],
    },
  },
];

export default config;
