/**
 * Sandbox Aadhaar OTP source (docs/kyc.md, Sandbox KYC). Any valid number works and the OTP is always 123456.
 * The four digits before the check digit (digits 8–11) pick the special outcomes:
 *
 *   9991 throws AADHAAR_MOBILE_NOT_LINKED   9992 throws AADHAAR_LOCKED   9998 throws SOURCE_UNAVAILABLE
 *
 * Stateless: the server may restart between sendOtp and submitOtp, so nothing is remembered and the
 * reference is not checked. The eKYC record (name, birth date, relative, address) is fixed by a hash
 * of the number; the photo is one grey silhouette for everyone.
 */
import { randomBytes } from "node:crypto";
import { isValidAadhaar } from "@/lib/aadhaar";
import { AppError } from "@/server/errors";
import { fnv1a32, mix32, pick, sandboxPerson, sandboxRelativeName } from "@/server/providers/sandbox-names/names";
import { SANDBOX_AADHAAR_ROWS } from "@/server/providers/sandbox-catalog";
import { fullAddressOf } from "@/server/providers/aadhaar/address";
import type { AadhaarAddress, AadhaarEkyc, AadhaarProvider } from "@/server/providers/aadhaar/types";

export const SANDBOX_AADHAAR_OTP = "123456";

/** A 48×60 baseline JPEG of a grey head-and-shoulders silhouette (610 bytes). */
export const SANDBOX_AADHAAR_PHOTO =
  "/9j/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCAA8ADADASIAAhEBAxEB/8QAGgABAQEAAwEAAAAAAAAAAAAAAAYEAQIHBf/EACkQAAEDAwEIAQUAAAAAAAAAAAEAAgMEBRExBhIhIkFRYXEWcqHBwtH/xAAWAQEBAQAAAAAAAAAAAAAAAAAAAQL/xAAWEQEBAQAAAAAAAAAAAAAAAAAAARH/2gAMAwEAAhEDEQA/APUkRFpkRTly2rbBM6GiibKWnBkeeXPgDVLbtW2eZsNbE2LeOBIw8ufIOiYKNERAWC9zuprPUysOHbm6D2ycflb1luVKa23T041e3l96j7oPOUXZ7HRvcx7S1zTgg9CjGOke1jGlznHAA6laRf2Sd1TZ6aV5y7c3Se+Dj8LesttpTRW6CnOrG83vU/dallRcEgAknAHVdZJGQxOlkcGsYCXE9Aoa73ue5yuaHFlODyxg6+T3Qfcuvx6rlLqmpa2Xq+E5J94BBS1fHqWUOpqlrpdA+Y4I9ZACj0VxHp4IIBByD1XKg7Re57ZK1pcX05PNGTp5HYq5jkZNE2WNwcx4BaR1Civi7WVJhtjYWnBmfg+hx/ijFU7ZnhRj6/1UsrEoiIqCs9k6kzWt0LjkwvwPR4/1RiqdjDwrB9H7KUj/2Q==";

/** A real locality with its post office, pincode and administrative parents; an empty locality is a village (vtc). */
export interface SandboxPlace {
  locality: string;
  postOffice: string;
  pincode: string;
  vtc: string;
  subDistrict: string;
  district: string;
  state: string;
}

const place = (locality: string, postOffice: string, pincode: string, vtc: string, subDistrict: string, district: string, state: string): SandboxPlace => ({
  locality,
  postOffice,
  pincode,
  vtc,
  subDistrict,
  district,
  state,
});

/** Also the bank sandbox's branches. */
export const SANDBOX_PLACES: readonly SandboxPlace[] = [
  place("Kothrud", "Kothrud", "411038", "Pune", "Pune City", "Pune", "Maharashtra"),
  place("Aundh", "Aundh", "411007", "Pune", "Pune City", "Pune", "Maharashtra"),
  place("Andheri East", "Andheri East", "400069", "Mumbai", "Andheri", "Mumbai Suburban", "Maharashtra"),
  place("Borivali West", "Borivali West", "400092", "Mumbai", "Borivali", "Mumbai Suburban", "Maharashtra"),
  place("Dharampeth", "Dharampeth Extension", "440010", "Nagpur", "Nagpur Urban", "Nagpur", "Maharashtra"),
  place("", "Manchar", "410503", "Manchar", "Ambegaon", "Pune", "Maharashtra"),
  place("Jayanagar", "Jayanagar", "560011", "Bengaluru", "Bengaluru South", "Bengaluru Urban", "Karnataka"),
  place("Indiranagar", "Indiranagar", "560038", "Bengaluru", "Bengaluru East", "Bengaluru Urban", "Karnataka"),
  place("Saraswathipuram", "Saraswathipuram", "570009", "Mysuru", "Mysuru", "Mysuru", "Karnataka"),
  place("", "Kanakapura", "562117", "Kanakapura", "Kanakapura", "Ramanagara", "Karnataka"),
  place("T. Nagar", "T. Nagar", "600017", "Chennai", "Mambalam", "Chennai", "Tamil Nadu"),
  place("Anna Nagar", "Anna Nagar", "600040", "Chennai", "Aminjikarai", "Chennai", "Tamil Nadu"),
  place("R.S. Puram", "R.S. Puram", "641002", "Coimbatore", "Coimbatore North", "Coimbatore", "Tamil Nadu"),
  place("Lajpat Nagar", "Lajpat Nagar", "110024", "New Delhi", "Defence Colony", "South East Delhi", "Delhi"),
  place("Rohini Sector 7", "Sector 7 Rohini", "110085", "Delhi", "Rohini", "North West Delhi", "Delhi"),
  place("Banjara Hills", "Banjara Hills", "500034", "Hyderabad", "Shaikpet", "Hyderabad", "Telangana"),
  place("Kukatpally", "Kukatpally", "500072", "Hyderabad", "Kukatpally", "Medchal-Malkajgiri", "Telangana"),
  place("Navrangpura", "Navrangpura", "380009", "Ahmedabad", "Ahmedabad City", "Ahmedabad", "Gujarat"),
  place("Adajan", "Adajan", "395009", "Surat", "Surat City", "Surat", "Gujarat"),
  place("", "Sanand", "382110", "Sanand", "Sanand", "Ahmedabad", "Gujarat"),
  place("Salt Lake", "Bidhannagar", "700091", "Bidhannagar", "Bidhannagar", "North 24 Parganas", "West Bengal"),
  place("Ballygunge", "Ballygunge", "700019", "Kolkata", "Kolkata", "Kolkata", "West Bengal"),
  place("Gomti Nagar", "Gomti Nagar", "226010", "Lucknow", "Lucknow", "Lucknow", "Uttar Pradesh"),
  place("Sector 62", "Noida Sector 62", "201309", "Noida", "Dadri", "Gautam Buddha Nagar", "Uttar Pradesh"),
  place("Sigra", "Sigra", "221010", "Varanasi", "Varanasi", "Varanasi", "Uttar Pradesh"),
  place("Malviya Nagar", "Malviya Nagar", "302017", "Jaipur", "Jaipur", "Jaipur", "Rajasthan"),
  place("Kakkanad", "Kakkanad", "682030", "Kochi", "Kanayannur", "Ernakulam", "Kerala"),
  place("Pattom", "Pattom", "695004", "Thiruvananthapuram", "Thiruvananthapuram", "Thiruvananthapuram", "Kerala"),
  place("Vijay Nagar", "Vijay Nagar", "452010", "Indore", "Indore", "Indore", "Madhya Pradesh"),
  place("Sarabha Nagar", "Sarabha Nagar", "141001", "Ludhiana", "Ludhiana West", "Ludhiana", "Punjab"),
  place("Boring Road", "Boring Road", "800001", "Patna", "Patna Sadar", "Patna", "Bihar"),
  place("DLF Phase 2", "DLF Phase II", "122002", "Gurugram", "Gurugram", "Gurugram", "Haryana"),
];

const BUILDINGS = [
  "Shanti Apartments",
  "Sai Krupa Residency",
  "Green Park Society",
  "Ganga Heights",
  "Lakshmi Nivas",
  "Shree Ganesh Complex",
  "Sunshine Towers",
  "Krishna Kunj",
  "Om Sai Enclave",
  "Vrindavan Society",
];
const STREETS = [
  "MG Road",
  "Station Road",
  "2nd Cross Road",
  "Gandhi Road",
  "Nehru Street",
  "Temple Street",
  "Main Road",
  "Lane No. 4",
  "Market Road",
  "Tilak Road",
  "Church Street",
  "College Road",
  "Ring Road",
  "Bazar Road",
];
const VILLAGE_STREETS = ["Ward No. 3", "Ward No. 7", "Mandir Galli", "Bazar Peth", "Pethe Road", "Main Road"];
const LANDMARKS = [
  "Near Hanuman Mandir",
  "Opp. Bus Stand",
  "Behind Post Office",
  "Near Govt. School",
  "Opp. Petrol Pump",
  "Near Water Tank",
  "Beside Shiv Mandir",
  "Near Railway Station",
  "Opp. SBI ATM",
  "Near Gram Panchayat Office",
];

function houseFor(village: boolean, h: number): string {
  const n = 1 + (mix32(h, 31) % 250);
  if (village) return `H.No. ${n}`;
  switch (mix32(h, 32) % 3) {
    case 0:
      return `Flat ${1 + (mix32(h, 33) % 12)}0${1 + (mix32(h, 34) % 4)}, ${pick(BUILDINGS, h, 35)}`;
    case 1:
      return `H.No. ${1 + (mix32(h, 33) % 20)}-${1 + (mix32(h, 34) % 9)}-${n}`;
    default:
      return String(n);
  }
}

function addressFor(h: number): AadhaarAddress {
  const p = pick(SANDBOX_PLACES, h, 30);
  const village = p.locality === "";
  return {
    house: houseFor(village, h),
    // Addresses without a street or landmark are common on eKYC records.
    street: mix32(h, 36) % 6 === 0 ? "" : pick(village ? VILLAGE_STREETS : STREETS, h, 37),
    landmark: mix32(h, 38) % 4 === 0 ? "" : pick(LANDMARKS, h, 39),
    locality: p.locality,
    vtc: p.vtc,
    postOffice: p.postOffice,
    subDistrict: p.subDistrict,
    district: p.district,
    state: p.state,
    country: "India",
    pincode: p.pincode,
  };
}

/** A real calendar date in 1960–2004. */
function dobFor(h: number): string {
  const year = 1960 + (mix32(h, 21) % 45);
  const month = 1 + (mix32(h, 22) % 12);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const day = 1 + (mix32(h, 23) % days);
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/** The eKYC record of a valid Aadhaar number. */
export function sandboxAadhaarEkyc(aadhaarNumber: string): AadhaarEkyc {
  const h = fnv1a32(`aadhaar:${aadhaarNumber}`);
  const person = sandboxPerson(h);
  const dob = dobFor(h);
  const yearOfBirth = dob.slice(0, 4);
  let careOf: string;
  if (!person.female) careOf = `S/O ${sandboxRelativeName(person, h, 24)}`;
  // Older women are often recorded with their husband.
  else if (Number(yearOfBirth) < 1995 && mix32(h, 27) % 3 !== 0) careOf = `W/O ${sandboxRelativeName(person, h, 24)}`;
  else careOf = `D/O ${sandboxRelativeName(person, h, 24)}`;
  const address = addressFor(h);
  return {
    name: person.name,
    dob,
    yearOfBirth,
    gender: person.female ? "F" : "M",
    careOf,
    address,
    fullAddress: fullAddressOf(address),
    photo: SANDBOX_AADHAAR_PHOTO,
  };
}

/** Throws what the four digits before the check digit ask for. */
function scriptedFailure(aadhaarNumber: string): void {
  if (!isValidAadhaar(aadhaarNumber)) throw new AppError("INVALID_AADHAAR");
  const serial = aadhaarNumber.slice(7, 11);
  if (serial === "9998") throw new AppError("SOURCE_UNAVAILABLE", undefined, { retryAfterSeconds: 30 });
}

export const sandboxAadhaarProvider: AadhaarProvider = {
  async sendOtp(aadhaarNumber) {
    scriptedFailure(aadhaarNumber);
    const serial = aadhaarNumber.slice(7, 11);
    if (serial === "9991") throw new AppError("AADHAAR_MOBILE_NOT_LINKED");
    if (serial === "9992") throw new AppError("AADHAAR_LOCKED");
    const mobileLast4 = String(mix32(fnv1a32(`aadhaar:${aadhaarNumber}`), 40) % 10_000).padStart(4, "0");
    return { mobileLast4, reference: `uidai_${randomBytes(8).toString("hex")}` };
  },

  async submitOtp(aadhaarNumber, _reference, otp) {
    scriptedFailure(aadhaarNumber);
    if (otp !== SANDBOX_AADHAAR_OTP) return { kind: "wrong-otp" };
    return { kind: "verified", ekyc: sandboxAadhaarEkyc(aadhaarNumber) };
  },

  // The documented numbers are in every integrator's tests; limits across merchants would use them up for all.
  sharedTestNumbers: new Set(SANDBOX_AADHAAR_ROWS.map((r) => r.input)),
};
