import { expect, test } from "@playwright/test";

// e2e/chromium.ts turns off the address bar's WebUI popups by feature name: a Chromium that renamed
// them would quietly start a renderer for each browser context again.
test("the browser runs no address-bar popup page beside the tests' own", async ({ browser, page }) => {
  await page.goto("/api/health");
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos: { type: string; url: string }[] };
  expect(targetInfos.filter((t) => t.url.startsWith("chrome://omnibox-popup"))).toEqual([]);
  expect(targetInfos.some((t) => t.type === "page")).toBe(true);
});
