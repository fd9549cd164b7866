export declare const PROJECT_ROOT: string;
/** The file in a bundle's folder listing the sources it was built from. */
export declare const SOURCES_FILE: string;
/** Whether `outDir` (default dist/) holds a bundle built from the sources as they are now. */
export declare function bundleIsCurrent(outDir?: string): boolean;
