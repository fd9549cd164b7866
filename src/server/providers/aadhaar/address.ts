import type { AadhaarAddress } from "./types";

/**
 * The one-line address: the non-empty parts in field order, then state, country and pincode. Locality
 * and post office, or city, sub-district and district, are often one name: it is said once.
 */
export function fullAddressOf(address: AadhaarAddress): string {
  const local = [address.house, address.street, address.landmark, address.locality, address.vtc, address.postOffice, address.subDistrict, address.district];
  return [...new Set(local.filter((part) => part !== "")), address.state, address.country, address.pincode].join(", ");
}
