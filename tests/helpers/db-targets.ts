// Which databases the integration suites run on (no other imports: suites load it before setting up their environment).

export type DbTarget = "sqlite" | "postgresql";

/**
 * Every integration suite runs once per database provider; `TEST_DB=sqlite` (or `postgresql`) runs
 * one of them, for a quicker run while working on something.
 */
export const DB_TARGETS: DbTarget[] = (["sqlite", "postgresql"] as const).filter((t) => !process.env.TEST_DB || process.env.TEST_DB.split(",").includes(t));
