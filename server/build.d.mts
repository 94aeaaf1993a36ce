/** Path of the bundled server, `server/dist/main.js`. */
export declare const SERVER_BUNDLE: string;
/** Builds `server/dist/main.js` with esbuild (atomic write); resolves to its path. */
export declare function buildServer(): Promise<string>;
/** The node flags of `npm run serve -w server`, to start the bundle exactly as users do. */
export declare function serveNodeFlags(): string[];
