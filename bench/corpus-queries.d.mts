/** See corpus-queries.mjs. */
export declare const QUERIES: ReadonlyArray<string>
