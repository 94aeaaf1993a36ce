/** Path of the bundled server, `server/dist/main.js`. */
export declare const SERVER_BUNDLE: string;
/** Path of the bundled `bridge` CLI, `server/dist/cli.js`. */
export declare const CLI_BUNDLE: string;
/** Path of the /docs renderer copied at build time, `server/dist/scalar.js`. */
export declare const SCALAR_BUNDLE: string;
/** Builds both bundles with esbuild and copies the renderer (atomic writes); resolves to the server's path. */
export declare function buildServer(): Promise<string>;
/** The node flags of `npm run serve -w server`, to start the bundle exactly as users do. */
export declare function serveNodeFlags(): string[];
