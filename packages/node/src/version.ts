/** This package's version (tests/unit/sdk-pure.test.ts holds it equal to package.json's), sent in the User-Agent. */
export const VERSION = "0.1.0";
