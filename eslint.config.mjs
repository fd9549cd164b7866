import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

// The layering of design.md, as rules: a slip fails `npm test` instead of waiting for a review.
// tests/unit/lint-boundaries.test.ts holds a violation of each rule.

const PRISMA_OWNERS = "Only services (src/server/services), the job queue (src/server/jobs) and src/server/db touch Prisma";

/**
 * Doors never hold the Prisma client: they pass it straight into a service call (`f(ctx.services.db)`,
 * or as the `db` of a service's argument object) and nothing else, so it cannot be queried under
 * another name. `db.model…` and `tx.model…` are Prisma calls under the usual names.
 */
const prismaAccess = [
  {
    selector:
      "MemberExpression[property.name='db']:not(CallExpression > MemberExpression.arguments):not(NewExpression > MemberExpression.arguments):not(Property[key.name='db'] > MemberExpression.value)",
    message: `${PRISMA_OWNERS}: pass the client straight to a service call, never keep or query it here.`,
  },
  {
    selector: "ObjectPattern > Property[key.name='db']",
    message: `${PRISMA_OWNERS}: pass the client straight to a service call, never take it out of the services.`,
  },
  {
    selector: "MemberExpression[object.type='Identifier'][object.name=/^(db|tx)$/][property.name=/^(\\$|[a-z])/]",
    message: `${PRISMA_OWNERS}: call a service instead.`,
  },
];

/**
 * Next bundles its own copy of the server's modules for the pages, beside the copy the services were
 * built from: an AppError thrown by one copy is not `instanceof` the other's class. `isAppError`
 * recognises both (src/server/errors.ts).
 */
const crossCopyErrors = [
  {
    selector: "BinaryExpression[operator='instanceof'][right.name='AppError']",
    message: "Recognise an AppError with isAppError(): the pages' bundle has its own copy of the class.",
  },
];

/** The Prisma client module; its types (Db, DbTx) may be named anywhere. */
const prismaClientModule = {
  group: ["@/server/db/client", "**/db/client"],
  allowTypeImports: true,
  message: `${PRISMA_OWNERS}: doors call services, which take the client from getServices().`,
};

const DIALECT_OWNER = "Only src/server/db knows the database dialect";

/**
 * The dialect modules and the accessors that say which database a client or URL is: only src/server/db
 * knows which database it talks to. Code elsewhere calls a store function of src/server/db, which
 * holds one rule for both databases (and is tested on both).
 */
const dialect = {
  paths: [
    { name: "better-sqlite3", message: `${DIALECT_OWNER}.` },
    { name: "pg", message: `${DIALECT_OWNER}.` },
    { name: "@prisma/adapter-better-sqlite3", message: `${DIALECT_OWNER}.` },
    { name: "@prisma/adapter-pg", message: `${DIALECT_OWNER}.` },
  ],
  patterns: [
    { group: ["**/generated/prisma*", "**/generated/prisma*/**"], message: "Import the client from @/server/db/client." },
    {
      group: ["@/server/db/provider", "**/db/provider"],
      importNames: ["providerFromUrl"],
      message: `${DIALECT_OWNER}: branch on the database inside a store function there.`,
    },
    {
      group: ["@/server/db/client", "**/db/client"],
      importNames: ["dbProvider", "postgresPool"],
      message: `${DIALECT_OWNER}: branch on the database inside a store function there.`,
    },
  ],
};

/**
 * Raw SQL through Prisma, and a branch on the database's name: only src/server/db (SQL both databases
 * accept goes through the atomic writer's `sql` tag, src/server/db/atomic-write.ts).
 */
const dialectSyntax = [
  {
    selector: "MemberExpression[property.name=/^\\$(queryRaw|executeRaw)(Unsafe)?$/]",
    message: `${DIALECT_OWNER}: raw SQL through Prisma goes in a store function there.`,
  },
  {
    selector: "BinaryExpression[operator=/^[!=]==?$/] > Literal[value=/^(sqlite|postgresql)$/]",
    message: `${DIALECT_OWNER}: branch on the database inside a store function there.`,
  },
  {
    selector: "SwitchCase > Literal.test[value=/^(sqlite|postgresql)$/]",
    message: `${DIALECT_OWNER}: branch on the database inside a store function there.`,
  },
];

const httpPackages = { group: ["next", "next/**", "@trpc/**"], message: "Services know no HTTP." };

/**
 * Which folders a layer may not import from, matched on the resolved file: `@/server/rest/envelope`,
 * `../rest/envelope` and `src/server/rest/envelope` are the same import.
 */
const layerZones = [
  {
    // Providers may call out over HTTP (they are the adapters to upstreams and to merchants' webhook
    // endpoints), but like services and jobs they know nothing of the doors.
    target: ["./src/server/services", "./src/server/providers", "./src/server/jobs", "./src/server/job-handlers"],
    // The metrics read them (counts, hooks), never the other way round.
    from: [
      "./src/server/rest",
      "./src/server/trpc",
      "./src/server/api",
      "./src/server/http",
      "./src/server/auth",
      "./src/server/metrics",
      "./src/app",
      "./src/components",
    ],
    message: "Services, providers and jobs know no HTTP and no door: they take plain arguments and throw AppError.",
  },
  {
    // The job queue and its declarations sit below the services, which enqueue through them.
    target: "./src/server/jobs",
    from: ["./src/server/services", "./src/server/services.ts", "./src/server/job-handlers"],
    message:
      "The job queue and its declarations (type, payload, lane) sit below the services: what a job does is bound above them, in src/server/job-handlers.",
  },
  {
    // Handlers call the services; only the start of the runners reads them.
    target: [
      "./src/server/services",
      "./src/server/services.ts",
      "./src/server/providers",
      "./src/server/lib",
      "./src/server/db",
      "./src/server/api",
      "./src/server/rest",
      "./src/server/trpc",
      "./src/server/metrics",
      "./src/app",
      "./src/components",
    ],
    from: "./src/server/job-handlers",
    message: "Enqueue a job through its declaration in src/server/jobs/registry.ts; its handler is for the runners alone.",
  },
  {
    // The pieces every layer uses (ids, crypto, logging, addresses), the settings and the database's code included.
    target: "./src/server/lib",
    from: [
      "./src/server/services",
      "./src/server/services.ts",
      "./src/server/providers",
      "./src/server/jobs",
      "./src/server/job-handlers",
      "./src/server/rest",
      "./src/server/api",
      "./src/server/http",
      "./src/server/metrics",
      "./src/server/config.ts",
      "./src/server/db",
    ],
    message: "src/server/lib is used by every layer, the settings and src/server/db included: it imports none of them.",
  },
  {
    // Operations are built from the REST kit (meta, envelopes, procedures); the door that serves them is in src/server/http.
    target: "./src/server/rest",
    from: ["./src/server/api", "./src/server/http"],
    message: "src/server/rest is the kit REST operations are built from: it imports no operation and no door (the door is src/server/http/rest-door.ts).",
  },
  {
    // The doors count requests through the metrics; the metrics know no door (GET /metrics itself is in src/server/http).
    target: "./src/server/metrics",
    from: ["./src/server/rest", "./src/server/api", "./src/server/http", "./src/server/trpc", "./src/server/auth"],
    message: "The doors count requests through the metrics, never the other way round.",
  },
  {
    // src/lib runs in the browser as well, and sits below every layer: it names no server module,
    // not even by type (the dashboard's tRPC client, which takes the router's type, is in src/components).
    target: "./src/lib",
    from: ["./src/server", "./src/generated"],
    message: "src/lib is shared with the browser: it imports no server code.",
  },
];

/** The server's doors: they take requests (HTTP, tRPC, REST) and call services. */
const SERVER_DOORS = [
  "src/server/api/**/*.ts",
  "src/server/trpc/**/*.ts",
  "src/server/rest/**/*.ts",
  "src/server/http/**/*.ts",
  "src/server/auth/**/*.ts",
  "src/server/metrics/**/*.ts",
];

const config = [
  {
    ignores: [
      ".next/**",
      "dist/**",
      "packages/*/dist/**",
      "packages/node/src/generated/**",
      "node_modules/**",
      "src/generated/**",
      "test-results/**",
      "playwright-report/**",
      "bench-results/**",
      "data/**",
      "next-env.d.ts",
    ],
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
    rules: {
      "no-restricted-imports": ["error", dialect],
      "import/no-restricted-paths": ["error", { zones: layerZones }],
    },
  },
  {
    // Neither Next nor tRPC below the doors (the layer zones above keep out the doors themselves).
    files: ["src/server/providers/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: dialect.paths, patterns: [...dialect.patterns, httpPackages] }] },
  },
  {
    files: ["src/server/services/**/*.ts", "src/server/jobs/**/*.ts", "src/server/job-handlers/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            ...dialect.paths,
            { name: "node:http", message: "Services know no HTTP." },
            { name: "node:https", message: "Services know no HTTP: outbound calls go through a provider." },
          ],
          patterns: [...dialect.patterns, httpPackages],
        },
      ],
    },
  },
  {
    // src/lib is bundled for the browser too: no Node modules, no Prisma.
    files: ["src/lib/**/*.{ts,tsx}"],
    rules: {
      "import/no-nodejs-modules": ["error"],
      "no-restricted-imports": [
        "error",
        {
          paths: dialect.paths,
          patterns: [...dialect.patterns, { group: ["@prisma/**"], message: "src/lib is shared with the browser: no Prisma." }],
        },
      ],
    },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    ignores: ["src/server/db/**"],
    rules: { "no-restricted-syntax": ["error", ...crossCopyErrors, ...dialectSyntax] },
  },
  {
    files: ["src/server/db/**/*.ts", "scripts/**/*.ts", "server.ts"],
    rules: { "no-restricted-syntax": ["error", ...crossCopyErrors] },
  },
  {
    // Doors (pages, routes, routers, the REST door, tRPC, the operator CLI) call services; they never query Prisma themselves.
    files: ["scripts/cli.ts", "src/app/**/*.{ts,tsx}", ...SERVER_DOORS, "src/components/**/*.{ts,tsx}"],
    rules: { "no-restricted-syntax": ["error", ...prismaAccess, ...crossCopyErrors, ...dialectSyntax] },
  },
  {
    // Doors do not import the client either. The wiring of each process or thread opens and closes
    // it: the server's start.ts, the page thread's entry and the operator CLI (scripts/cli.ts, which is not listed here).
    files: SERVER_DOORS,
    ignores: ["src/server/http/start.ts", "src/server/http/page-thread-entry.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [prismaClientModule] }] },
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
            prismaClientModule,
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
  {
    files: ["src/app/api/trpc/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [prismaClientModule] }] },
  },
  {
    // The Node SDK is published on its own: no runtime dependencies (Node's own modules and its own files
    // only) and nothing of the app it talks to, which it knows only through the generated API types.
    files: ["packages/node/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!node:|\\./|\\.\\./)",
              message: "The SDK has no dependencies: import Node's own modules (node:…) and the package's own files only.",
            },
          ],
        },
      ],
      "import/no-restricted-paths": [
        "error",
        {
          zones: [
            {
              target: "./packages/node",
              from: ["./src", "./scripts", "./tests", "./server.ts"],
              message: "The SDK is published on its own: it knows the app only through its generated API types.",
            },
          ],
        },
      ],
    },
  },
  {
    // Code that fits on a screen: a longer function or file is split by what its parts do. Tests are
    // lists of cases and stay out; generated code is ignored above; word lists are fixture data.
    files: ["src/**/*.{ts,tsx}", "scripts/**/*.ts", "server.ts", "packages/node/src/**/*.ts"],
    ignores: ["src/server/providers/sandbox-names/word-lists.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
      "max-lines": ["error", { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
];

export default config;
