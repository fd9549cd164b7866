/**
 * Deterministic names for the sandbox sources: the same hash always gives the same person or entity.
 * Names are upper case, as the registries print them.
 */
import type { PanCategory } from "@/lib/pan";
import { COMPANY_TRADES, FIRST_NAMES, MIDDLE_NAMES, PLACES, SURNAMES, type Tradition } from "./word-lists";

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

export function entityName(category: PanCategory, letter: string, hash: number): string {
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
