import { expect, test, type Page } from "@playwright/test";

const PAN_PATH = "/v1/identity/pan/verify";

/** Opens /docs and waits until Swagger UI has fetched the spec and drawn the operations. */
async function openDocs(page: Page) {
  await page.goto("/docs");
  await expect(page.locator(".swagger-ui .information-container .title")).toContainText("Parakh API");
  await expect(page.locator(".swagger-ui .opblock-tag-section").first()).toBeVisible();
}

/** Follows a local JSON pointer (`#/a/b`) through the document; undefined when it leads nowhere. */
function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return doc;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!node || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function panOperation(page: Page) {
  return page.locator(".opblock.opblock-post").filter({ has: page.locator(`.opblock-summary-path[data-path="${PAN_PATH}"]`) });
}

test.describe("API reference", () => {
  test("the OpenAPI document describes the PAN operation", async ({ request }) => {
    const res = await request.get("/api/openapi.json");
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("application/json");
    const doc = await res.json();
    const op = doc.paths?.[PAN_PATH]?.post;
    expect(op, `${PAN_PATH} is missing from the document`).toBeTruthy();
    expect(op.summary).toBe("Verify a PAN");
    expect(op.tags).toContain("Identity");
    let body = op.requestBody.content["application/json"].schema;
    if (body.$ref) body = resolvePointer(doc, body.$ref);
    expect(Object.keys(body?.properties ?? {})).toContain("pan");
    expect(JSON.stringify(op.responses)).toContain("INVALID_PAN");
  });

  test("every $ref in the OpenAPI document resolves", async ({ request }) => {
    const doc = await (await request.get("/api/openapi.json")).json();
    const unresolved = new Set<string>();
    const visit = (node: unknown) => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node !== "object") return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "$ref" && typeof value === "string" && resolvePointer(doc, value) === undefined) unresolved.add(value);
        else visit(value);
      }
    };
    visit(doc);
    // Swagger UI resolves refs against the whole document and shows an error box for each miss.
    expect([...unresolved]).toEqual([]);
  });

  test("/docs renders the PAN operation with its body and errors", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await openDocs(page);

    const identity = page.locator('.opblock-tag[data-tag="Identity"]');
    await expect(identity).toBeVisible();
    await expect(identity).toContainText("Identity");

    const op = panOperation(page);
    await expect(op).toHaveCount(1);
    await expect(op.locator(".opblock-summary-method")).toHaveText("POST");
    await expect(op.locator(".opblock-summary-description")).toHaveText("Verify a PAN");

    await op.locator(".opblock-summary-control").click();
    const body = op.locator(".opblock-body");
    await expect(body).toBeVisible();

    // Request body: switch from the example to the schema view, which lists the fields.
    const requestBody = body.locator(".opblock-section-request-body");
    await expect(requestBody).toBeVisible();
    await requestBody.locator('[data-name="model"]').click();
    await expect(requestBody.locator(".model-box")).toContainText("pan");

    const responses = body.locator(".responses-wrapper");
    await expect(responses).toBeVisible();
    await expect(responses.locator(".response-col_status", { hasText: /^\s*400\s*$/ })).toBeVisible();
    await expect(responses).toContainText("INVALID_PAN");

    // The stylesheet from /docs/assets must be applied (Swagger's own colours, not bare HTML).
    const postColour = await op.locator(".opblock-summary-method").evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(postColour).toBe("rgb(73, 204, 144)");

    // Move the pointer off the summary so hover transitions do not show in the picture.
    await page.mouse.move(0, 0);
    await page.screenshot({ path: testInfo.outputPath("docs.png"), fullPage: true });
  });

  test("/docs is usable at phone width", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openDocs(page);
    const op = panOperation(page);
    await expect(op.locator(".opblock-summary-description")).toBeVisible();
    await op.locator(".opblock-summary-control").click();
    await expect(op.locator(".responses-wrapper")).toContainText("INVALID_PAN");
    await page.mouse.move(0, 0);
    await page.screenshot({ path: testInfo.outputPath("docs-phone.png"), fullPage: true });
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    expect(widths.page, "the page scrolls sideways at phone width").toBeLessThanOrEqual(widths.screen);
  });

  test("error responses show the error envelope, with no resolver errors", async ({ page }) => {
    await openDocs(page);
    const op = panOperation(page);
    await op.locator(".opblock-summary-control").click();
    const row400 = op.locator("tr.response", { has: page.locator(".response-col_status", { hasText: /^\s*400\s*$/ }) });
    // An unresolved schema shows the placeholder example "string" instead of the envelope.
    await expect(row400.locator("pre.example.microlight")).toContainText('"status": "error"');
    await expect(page.locator(".swagger-ui .errors-wrapper")).toHaveCount(0);
  });
});

test("home page links to the API reference", async ({ page }) => {
  await page.goto("/");
  const link = page.getByRole("navigation").getByRole("link", { name: "API reference", exact: true });
  await expect(link).toBeVisible();
  await link.click();
  await expect(page).toHaveURL(/\/docs\/?(#.*)?$/);
  await expect(page.locator(".swagger-ui .information-container .title")).toContainText("Parakh API");
});
