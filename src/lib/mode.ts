/** Cookie remembering the dashboard's Sandbox/Live choice; read by server layouts, written by the switch. */
export const MODE_COOKIE = "parakh_mode";

/** Every merchant has both; data never crosses them. The one definition of the type. */
export const MODES = ["sandbox", "live"] as const;
export type Mode = (typeof MODES)[number];
