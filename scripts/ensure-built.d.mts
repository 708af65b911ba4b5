/** The repository's root. */
export declare const root: string;
/** Whether dist/ is missing or older than src/, tsup.config.ts or package.json. */
export declare function distIsStale(): boolean;
