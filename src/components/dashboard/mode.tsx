"use client";

import { createContext, useCallback, useContext, useState } from "react";

import { MODE_COOKIE, type Mode } from "@/lib/mode";

export type { Mode };

const ModeContext = createContext<{ mode: Mode; setMode: (m: Mode) => void; liveEnabled: boolean }>({
  mode: "sandbox",
  setMode: () => undefined,
  liveEnabled: false,
});

/** The dashboard's Sandbox/Live switch, remembered in a cookie so server pages agree. */
export function ModeProvider({ initialMode, liveEnabled, children }: { initialMode: Mode; liveEnabled: boolean; children: React.ReactNode }) {
  const [mode, setModeState] = useState<Mode>(liveEnabled ? initialMode : "sandbox");
  const setMode = useCallback(
    (m: Mode) => {
      if (m === "live" && !liveEnabled) return;
      document.cookie = `${MODE_COOKIE}=${m}; path=/; max-age=31536000; samesite=lax`;
      setModeState(m);
    },
    [liveEnabled],
  );
  return <ModeContext.Provider value={{ mode, setMode, liveEnabled }}>{children}</ModeContext.Provider>;
}

export function useMode() {
  return useContext(ModeContext);
}
