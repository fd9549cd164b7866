import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { SDK_TYPES_FILE, sdkTypesSource } from "../../scripts/sdk-types";

// The SDK's request and answer types are generated from the server's OpenAPI document and checked in
// (packages/node/src/generated/openapi.ts): regenerated here, they must equal the file, so a schema
// change that is not regenerated (`npx tsx scripts/sdk-types.ts`) fails the tests.
describe("the SDK's generated types", () => {
  it("are what scripts/sdk-types.ts makes from today's document", async () => {
    const fresh = await sdkTypesSource();
    const checkedIn = fs.readFileSync(SDK_TYPES_FILE, "utf8");
    expect(checkedIn === fresh, "packages/node/src/generated/openapi.ts is out of date: run `npx tsx scripts/sdk-types.ts`").toBe(true);
  });
});
