// The Cashfree Payment Gateway stand-in the e2e server's live payments talk to (playwright.config.ts
// starts it as a web server): the fake of the integration tests, validating every call against the
// vendor's document, plus its JS checkout and card page for the browser.
import { FakeCashfreePg } from "../tests/helpers/fake-cashfree-pg";
import { serveFakeVendorCheckout } from "../tests/helpers/fake-cashfree-checkout";

const port = Number(process.env.FAKE_PG_PORT ?? 3101);
const clientId = process.env.CASHFREE_PG_CLIENT_ID ?? "";
const clientSecret = process.env.CASHFREE_PG_CLIENT_SECRET ?? "";
if (!clientId || !clientSecret) throw new Error("CASHFREE_PG_CLIENT_ID and CASHFREE_PG_CLIENT_SECRET are required");

void new FakeCashfreePg({ clientId, clientSecret }).start(port).then((fake) => {
  serveFakeVendorCheckout(fake);
  process.stderr.write(`fake Cashfree PG on ${fake.url}\n`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
});
