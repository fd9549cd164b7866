// How the browser tests start Debian's chromium (playwright.config.ts).

/**
 * Features Playwright turns off itself (playwright-core's chromiumSwitches.ts): Chromium keeps only the
 * last --disable-features it is given, so ours must repeat them (tests/unit/e2e-chromium.test.ts holds
 * this list to the installed Playwright's).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

// Full Chromium (its headless mode is the browser itself) renders the address bar's suggestion popups
// as WebUI pages, one renderer process for each browser context: a third of the browser's CPU in a
// spec, for a popup no test opens.
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox", // we run as root
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, "WebUIOmniboxPopup", "WebUIOmniboxAimPopup"].join(",")}`,
];
