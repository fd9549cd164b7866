/**
 * Sandbox PAN source (the README's sandbox fixtures): every well-formed PAN answers, the same PAN always with the
 * same record, and the serial (digits 6–9) picks the special outcomes:
 *
 *   9991 INVALID (not on record, name null)   9992 DEACTIVATED   9993 DELETED
 *   9994 individual whose Aadhaar is not linked
 *   9997 throws SOURCE_TIMEOUT                 9998 throws SOURCE_UNAVAILABLE
 *
 * Names are picked by a hash of the PAN and start with its 5th letter, as real PANs do: the
 * surname for individuals, the first word of the name for everyone else.
 */
import { isValidPan, panCategory, type PanCategory } from "@/lib/pan";
import { AppError } from "@/server/errors";
import type { AadhaarSeedingStatus, PanProvider, PanRecord, PanRecordStatus } from "./types";

// ---------------------------------------------------------------------------------------------
// Deterministic picking

/** FNV-1a, 32 bit. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A further independent-looking value from one hash (murmur3 finaliser), one per salt. */
export function mix32(hash: number, salt: number): number {
  let h = (hash ^ Math.imul(salt + 1, 0x9e3779b9)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function pick<T>(list: readonly T[], hash: number, salt: number): T {
  return list[mix32(hash, salt) % list.length]!;
}

// ---------------------------------------------------------------------------------------------
// Name material. Surnames carry a naming tradition so first names fit them.

export type Tradition = "G" | "M" | "C";

const SURNAMES: Record<Tradition, readonly string[]> = {
  G: [
    "AGARWAL",
    "AHUJA",
    "ARORA",
    "ACHARYA",
    "ADHIKARI",
    "BANERJEE",
    "BHATT",
    "BOSE",
    "BAJAJ",
    "BHATIA",
    "BANSAL",
    "BISWAS",
    "CHATTERJEE",
    "CHOPRA",
    "CHAUHAN",
    "CHAUDHARY",
    "CHAWLA",
    "DAS",
    "DESAI",
    "DUBEY",
    "DESHMUKH",
    "DHILLON",
    "DUTTA",
    "DIXIT",
    "EASWARAN",
    "ELANGO",
    "ERRAMILLI",
    "FADNAVIS",
    "GUPTA",
    "GOYAL",
    "GHOSH",
    "GILL",
    "GOKHALE",
    "GANGULY",
    "GOWDA",
    "HEGDE",
    "HARIHARAN",
    "HOODA",
    "HALDER",
    "HAZARIKA",
    "IYER",
    "IYENGAR",
    "INAMDAR",
    "ISSAR",
    "JAIN",
    "JOSHI",
    "JADHAV",
    "JAISWAL",
    "JHA",
    "KAPOOR",
    "KULKARNI",
    "KHANNA",
    "KAMATH",
    "KRISHNAN",
    "KOHLI",
    "LAL",
    "LAKHANI",
    "LIMAYE",
    "LAHIRI",
    "LOKHANDE",
    "MEHTA",
    "MISHRA",
    "MENON",
    "MALHOTRA",
    "MUKHERJEE",
    "MATHUR",
    "MODI",
    "NAIR",
    "NAIDU",
    "NAGPAL",
    "NARAYANAN",
    "NAIK",
    "NANDA",
    "OBEROI",
    "OJHA",
    "OAK",
    "OSWAL",
    "PATEL",
    "PANDEY",
    "PILLAI",
    "PATIL",
    "PRASAD",
    "PAREKH",
    "PURI",
    "RAO",
    "REDDY",
    "RASTOGI",
    "RATHORE",
    "RAJPUT",
    "RANA",
    "RAMAN",
    "SHARMA",
    "SINGH",
    "SHAH",
    "SAXENA",
    "SRIVASTAVA",
    "SEN",
    "SETHI",
    "TIWARI",
    "THAKUR",
    "TRIPATHI",
    "TANDON",
    "TALWAR",
    "TYAGI",
    "UPADHYAY",
    "UNNIKRISHNAN",
    "UPPAL",
    "UMARJI",
    "VERMA",
    "VARMA",
    "VYAS",
    "VENKATESAN",
    "VORA",
    "VAIDYA",
    "WADHWA",
    "WAGH",
    "WALIA",
    "WARRIER",
    "WADIA",
    "YADAV",
    "YAGNIK",
    "YEOLE",
    "ZAVERI",
    "ZUTSHI",
  ],
  M: [
    "ANSARI",
    "BAIG",
    "CHISHTI",
    "DURRANI",
    "FARUQUI",
    "GILANI",
    "HUSSAIN",
    "HAQUE",
    "IQBAL",
    "JAFRI",
    "KHAN",
    "LARI",
    "MIRZA",
    "NAQVI",
    "OSMANI",
    "PATHAN",
    "QURESHI",
    "QUADRI",
    "QAZI",
    "RIZVI",
    "SIDDIQUI",
    "USMANI",
    "WARSI",
    "YUSUF",
    "ZAIDI",
    "ZAKARIA",
  ],
  C: [
    "ABRAHAM",
    "BRAGANZA",
    "CHERIAN",
    "DIAS",
    "EAPEN",
    "FERNANDES",
    "FONSECA",
    "FURTADO",
    "GONSALVES",
    "ISAAC",
    "JOSEPH",
    "KURIAN",
    "LOBO",
    "MATHEW",
    "NORONHA",
    "OOMMEN",
    "PEREIRA",
    "QUADROS",
    "RODRIGUES",
    "SEQUEIRA",
    "THOMAS",
    "VARGHESE",
    "XAVIER",
    "XALXO",
    "XESS",
    "ZACHARIAH",
  ],
};

const FIRST_NAMES: Record<Tradition, { male: readonly string[]; female: readonly string[] }> = {
  G: {
    male: [
      "AMIT",
      "ANIL",
      "ARUN",
      "ASHOK",
      "ADITYA",
      "ARJUN",
      "AJAY",
      "ALOK",
      "BHARAT",
      "BALRAJ",
      "CHETAN",
      "CHANDAN",
      "DEEPAK",
      "DINESH",
      "EKNATH",
      "ESHWAR",
      "FATEH",
      "GAURAV",
      "GANESH",
      "HARISH",
      "HEMANT",
      "INDER",
      "ISHAAN",
      "JAYANT",
      "JITENDRA",
      "KARAN",
      "KIRAN",
      "LALIT",
      "LOKESH",
      "MANOJ",
      "MAHESH",
      "MUKESH",
      "NITIN",
      "NAVEEN",
      "OMKAR",
      "PRAKASH",
      "PRAVEEN",
      "PRANAV",
      "RAKESH",
      "RAJESH",
      "RAMESH",
      "RAHUL",
      "ROHIT",
      "SURESH",
      "SUNIL",
      "SANJAY",
      "SATISH",
      "SIDDHARTH",
      "SRINIVAS",
      "SURYA",
      "TARUN",
      "TUSHAR",
      "UDAY",
      "UMESH",
      "VIJAY",
      "VIKRAM",
      "VARUN",
      "VENKATESH",
      "VIVEK",
      "WAMAN",
      "YOGESH",
      "YASH",
      "ZORAWAR",
    ],
    female: [
      "ANITA",
      "ANJALI",
      "ARCHANA",
      "ASHA",
      "AISHWARYA",
      "BHAVANA",
      "DIVYA",
      "DEEPIKA",
      "EKTA",
      "FALGUNI",
      "GEETA",
      "HEMA",
      "INDU",
      "JYOTI",
      "JAYA",
      "KAVITA",
      "KAVYA",
      "LAKSHMI",
      "MEERA",
      "MADHURI",
      "NEHA",
      "NISHA",
      "POOJA",
      "PRIYA",
      "POONAM",
      "PALLAVI",
      "REKHA",
      "RITU",
      "SUNITA",
      "SWATI",
      "SAVITA",
      "SHALINI",
      "SNEHA",
      "SHRUTI",
      "TANVI",
      "USHA",
      "UMA",
      "VANDANA",
      "YAMINI",
    ],
  },
  M: {
    male: [
      "MOHAMMAD",
      "ABDUL",
      "IMRAN",
      "SALMAN",
      "FAISAL",
      "ARIF",
      "JAVED",
      "RIZWAN",
      "SHAHID",
      "TARIQ",
      "IRFAN",
      "NADEEM",
      "ASIF",
      "SAMEER",
      "ZUBAIR",
      "AAMIR",
    ],
    female: ["AYESHA", "FATIMA", "SANA", "NAZIA", "SHABANA", "RUKHSAR", "FARHANA", "ZOYA", "HUMA", "NASREEN", "SAMINA", "ZEENAT"],
  },
  C: {
    male: ["JOHN", "JOSEPH", "THOMAS", "GEORGE", "MATHEW", "PETER", "PAUL", "FRANCIS", "ANTHONY", "SAMUEL", "DANIEL", "STEPHEN", "SEBASTIAN", "VINCENT"],
    female: ["MARY", "ANNIE", "ELIZABETH", "SUSAN", "GRACE", "JESSY", "SHEELA", "ROSE", "LINDA", "MERCY", "STELLA"],
  },
};

const MIDDLE_NAMES: Record<Tradition, { male: readonly string[]; female: readonly string[] }> = {
  G: {
    male: ["KUMAR", "PRASAD", "CHANDRA", "NATH", "LAL", "MOHAN", "RAJ", "SHANKAR", "DEV"],
    female: ["DEVI", "KUMARI", "RANI", "LATA"],
  },
  M: { male: ["AHMED", "ALI", "RAZA", "ANWAR"], female: [] },
  C: { male: ["PAUL", "FRANCIS", "ANTONY"], female: ["MARIA", "ROSE"] },
};

interface Surname {
  name: string;
  tradition: Tradition;
}

function byInitial<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const letter = key(item).charAt(0);
    const list = map.get(letter);
    if (list) list.push(item);
    else map.set(letter, [item]);
  }
  return map;
}

const ALL_SURNAMES: Surname[] = (Object.keys(SURNAMES) as Tradition[]).flatMap((tradition) => SURNAMES[tradition].map((name) => ({ name, tradition })));
const SURNAMES_BY_INITIAL = byInitial(ALL_SURNAMES, (s) => s.name);
const G_MALE_BY_INITIAL = byInitial(FIRST_NAMES.G.male, (s) => s);

/** Cities and districts, several per letter; used for entity names. */
const PLACES = [
  "AGRA",
  "AMRITSAR",
  "AJMER",
  "ALIGARH",
  "BHOPAL",
  "BAREILLY",
  "BELAGAVI",
  "BIKANER",
  "CHENNAI",
  "CUTTACK",
  "COIMBATORE",
  "CHANDIGARH",
  "DEHRADUN",
  "DHANBAD",
  "DURGAPUR",
  "DARBHANGA",
  "ERODE",
  "ELURU",
  "ETAWAH",
  "ERNAKULAM",
  "FARIDABAD",
  "FIROZABAD",
  "FATEHPUR",
  "GUWAHATI",
  "GWALIOR",
  "GAYA",
  "GORAKHPUR",
  "HUBBALLI",
  "HISAR",
  "HALDWANI",
  "HOSUR",
  "INDORE",
  "IMPHAL",
  "ITANAGAR",
  "ICHALKARANJI",
  "JAIPUR",
  "JODHPUR",
  "JALANDHAR",
  "JAMSHEDPUR",
  "KANPUR",
  "KOTA",
  "KOLHAPUR",
  "KOZHIKODE",
  "LUCKNOW",
  "LUDHIANA",
  "LATUR",
  "LALITPUR",
  "MADURAI",
  "MYSURU",
  "MEERUT",
  "MANGALURU",
  "NAGPUR",
  "NASHIK",
  "NELLORE",
  "NANDED",
  "ONGOLE",
  "OSMANABAD",
  "ORAI",
  "PATNA",
  "PUNE",
  "PANIPAT",
  "PUDUCHERRY",
  "QADIAN",
  "QAZIGUND",
  "RAIPUR",
  "RANCHI",
  "RAJKOT",
  "ROHTAK",
  "SURAT",
  "SHIMLA",
  "SOLAPUR",
  "SILIGURI",
  "THANE",
  "TIRUPATI",
  "THRISSUR",
  "TUMAKURU",
  "UDAIPUR",
  "UJJAIN",
  "UDUPI",
  "UNNAO",
  "VADODARA",
  "VARANASI",
  "VELLORE",
  "VIJAYAWADA",
  "WARANGAL",
  "WARDHA",
  "WASHIM",
  "WAYANAD",
  "XELDEM",
  "YAVATMAL",
  "YAMUNANAGAR",
  "YADGIR",
  "ZIRAKPUR",
  "ZUNHEBOTO",
  "ZAHIRABAD",
] as const;
const PLACES_BY_INITIAL = byInitial(PLACES, (s) => s);

const A_TO_Z = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function surnameFor(letter: string, hash: number, salt: number): Surname {
  return pick(SURNAMES_BY_INITIAL.get(letter) ?? ALL_SURNAMES, hash, salt);
}

export interface SandboxPerson {
  /** FIRST [MIDDLE] SURNAME, upper case. */
  name: string;
  first: string;
  surname: string;
  female: boolean;
  tradition: Tradition;
}

/**
 * A person, named FIRST [MIDDLE] SURNAME in upper case. The surname starts with `surnameInitial`
 * when given (any A–Z letter has one); otherwise it is picked freely.
 */
export function sandboxPerson(hash: number, surnameInitial?: string): SandboxPerson {
  const letter = surnameInitial ?? A_TO_Z.charAt(mix32(hash, 1) % 26);
  const surname = surnameFor(letter, hash, 2);
  const female = (mix32(hash, 3) & 1) === 1;
  const pools = FIRST_NAMES[surname.tradition];
  const first = pick(female ? pools.female : pools.male, hash, 4);
  const middles = MIDDLE_NAMES[surname.tradition][female ? "female" : "male"].filter((m) => m !== first && m !== surname.name);
  const withMiddle = middles.length > 0 && mix32(hash, 5) % 5 < 2;
  const name = withMiddle ? `${first} ${pick(middles, hash, 6)} ${surname.name}` : `${first} ${surname.name}`;
  return { name, first, surname: surname.name, female, tradition: surname.tradition };
}

/** The full name of `sandboxPerson(hash, surnameInitial)`. */
export function sandboxPersonName(hash: number, surnameInitial?: string): string {
  return sandboxPerson(hash, surnameInitial).name;
}

/** A man of the same family (father or husband): same surname and tradition, another first name. */
export function sandboxRelativeName(person: SandboxPerson, hash: number, salt: number): string {
  const firsts = FIRST_NAMES[person.tradition].male.filter((f) => f !== person.first);
  const first = pick(firsts, hash, salt);
  const middles = MIDDLE_NAMES[person.tradition].male.filter((m) => m !== person.surname && m !== first);
  const withMiddle = middles.length > 0 && mix32(hash, salt + 1) % 5 < 2;
  return withMiddle ? `${first} ${pick(middles, hash, salt + 2)} ${person.surname}` : `${first} ${person.surname}`;
}

/** Surnames and places by initial: the first word of an entity name. */
const ENTITY_WORDS_BY_INITIAL = byInitial([...ALL_SURNAMES.map((s) => s.name), ...PLACES], (s) => s);

function entityWord(letter: string, hash: number): string {
  return pick(ENTITY_WORDS_BY_INITIAL.get(letter) ?? PLACES, hash, 10);
}

function placeFor(letter: string, hash: number): string {
  return pick(PLACES_BY_INITIAL.get(letter) ?? PLACES, hash, 11);
}

const COMPANY_TRADES = [
  "TRADERS",
  "INDUSTRIES",
  "TEXTILES",
  "INFOTECH",
  "PHARMA",
  "ENGINEERING",
  "LOGISTICS",
  "FOODS",
  "STEELS",
  "CONSTRUCTIONS",
  "AGRO PRODUCTS",
  "ELECTRICALS",
  "CHEMICALS",
  "SOFTWARE SOLUTIONS",
  "EXPORTS",
];

function entityName(category: PanCategory, letter: string, hash: number): string {
  switch (category) {
    case "COMPANY":
      return `${entityWord(letter, hash)} ${pick(COMPANY_TRADES, hash, 12)} ${pick(["PRIVATE LIMITED", "PRIVATE LIMITED", "LIMITED"], hash, 13)}`;
    case "FIRM":
      return `${entityWord(letter, hash)} ${pick(["& SONS", "ENTERPRISES", "& ASSOCIATES", "BROTHERS", "& CO", "TRADING COMPANY"], hash, 12)}`;
    case "HUF": {
      // Named after the karta: FIRST SURNAME HUF, the first name carrying the letter.
      const firsts = G_MALE_BY_INITIAL.get(letter);
      const surname = pick(SURNAMES.G, hash, 12);
      return firsts ? `${pick(firsts, hash, 13)} ${surname} HUF` : `${surnameFor(letter, hash, 13).name} FAMILY HUF`;
    }
    case "AOP":
      return `${entityWord(letter, hash)} ${pick(["CO-OPERATIVE HOUSING SOCIETY", "RESIDENTS WELFARE ASSOCIATION", "CONSORTIUM", "JOINT VENTURE"], hash, 12)}`;
    case "TRUST":
      return `${entityWord(letter, hash)} ${pick(["CHARITABLE TRUST", "EDUCATIONAL TRUST", "FAMILY TRUST", "MEMORIAL TRUST"], hash, 12)}`;
    case "BOI":
      return `${entityWord(letter, hash)} ${pick(["CO-OWNERS", "LEGAL HEIRS", "FAMILY CO-OWNERS"], hash, 12)}`;
    case "LOCAL_AUTHORITY":
      return `${placeFor(letter, hash)} ${pick(["MUNICIPAL CORPORATION", "MUNICIPAL COUNCIL", "NAGAR PANCHAYAT", "ZILLA PARISHAD", "CANTONMENT BOARD"], hash, 12)}`;
    case "ARTIFICIAL_JURIDICAL_PERSON":
      return `${placeFor(letter, hash)} ${pick(["UNIVERSITY", "TEMPLE DEVASTHANAM", "INSTITUTE OF TECHNOLOGY"], hash, 12)}`;
    case "GOVERNMENT":
      return `${placeFor(letter, hash)} ${pick(["DISTRICT TREASURY OFFICE", "DIVISION PUBLIC WORKS DEPARTMENT", "REGIONAL TRANSPORT OFFICE", "COLLECTORATE"], hash, 12)}`;
    case "INDIVIDUAL":
      return sandboxPersonName(hash, letter);
  }
}

// ---------------------------------------------------------------------------------------------

/** Date of birth (or incorporation) on every sandbox record. */
export const SANDBOX_PAN_DOB = "1990-01-01";

const SERIAL_STATUS: Record<string, PanRecordStatus> = {
  "9991": "INVALID",
  "9992": "DEACTIVATED",
  "9993": "DELETED",
};

/** The sandbox record for a normalized, valid PAN (throws the source errors the serial asks for). */
export function sandboxPanRecord(pan: string): PanRecord {
  if (!isValidPan(pan)) throw new AppError("INVALID_PAN");
  const serial = pan.slice(5, 9);
  if (serial === "9997") throw new AppError("SOURCE_TIMEOUT", undefined, { retryAfterSeconds: 5 });
  if (serial === "9998") throw new AppError("SOURCE_UNAVAILABLE", undefined, { retryAfterSeconds: 30 });

  const category = panCategory(pan);
  const status = SERIAL_STATUS[serial] ?? "VALID";
  const individual = category === "INDIVIDUAL";
  let aadhaarSeedingStatus: AadhaarSeedingStatus;
  if (status === "INVALID" || !individual) aadhaarSeedingStatus = "NOT_APPLICABLE";
  // A deactivated or deleted PAN carries no live seeding.
  else if (status !== "VALID" || serial === "9994") aadhaarSeedingStatus = "NOT_LINKED";
  else aadhaarSeedingStatus = "LINKED";

  return {
    pan,
    status,
    name: status === "INVALID" ? null : entityName(category, pan.charAt(4), fnv1a32(pan)),
    category,
    aadhaarSeedingStatus,
    // One date for every sandbox record, so PAN KYC's dobMatch is predictable (README fixtures).
    dob: status === "INVALID" ? null : SANDBOX_PAN_DOB,
    remarks: null,
  };
}

export const sandboxPanProvider: PanProvider = {
  async lookup(pan) {
    return sandboxPanRecord(pan);
  },
};
