/** How customers know the big banks; the short forms they see on cheques and apps. */
const BANK_SHORT_NAMES: Record<string, string> = {
  "State Bank of India": "SBI",
  "HDFC Bank": "HDFC",
  "ICICI Bank": "ICICI",
  "Axis Bank": "Axis",
  "Kotak Mahindra Bank": "Kotak",
  "Punjab National Bank": "PNB",
  "Bank of Baroda": "BoB",
  "Canara Bank": "Canara",
  "Union Bank of India": "Union",
  "IndusInd Bank": "Indus",
  "Yes Bank": "Yes",
  "IDFC FIRST Bank": "IDFC",
};

/** The badge text: a known short name, else the initials of the name's capitalised words ("of" is skipped). */
export function bankShortName(bank: string): string {
  return (
    BANK_SHORT_NAMES[bank] ??
    bank
      .split(/\s+/)
      .filter((w) => /^[A-Z]/.test(w))
      .map((w) => w[0])
      .join("")
      .slice(0, 4)
  );
}
