/** Cookie remembering the dashboard's Sandbox/Live choice; read by server layouts, written by the switch. */
export const MODE_COOKIE = "parakh_mode";

export type Mode = "sandbox" | "live";
