/** What the backend needs, read once from the environment. */
export interface Config {
  /** The bridge as this backend and the browser reach it. */
  bridgeUrl: string;
  /** An API key of the bridge (`npm start` at the bridge prints one). Never sent to a browser. */
  apiKey: string;
  host: string;
  port: number;
  /** This app's origin as the browser sees it: the bridge must allow it for the organization. */
  publicOrigin: string;
  /** The organization this app embeds; found by name (and origin) or created. */
  orgName: string;
}

/** Reads the configuration; throws with the variable's name when one is missing or wrong. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { BRIDGE_API_KEY, BRIDGE_URL, BRIDGE_ORG_NAME, HOST, PORT, PUBLIC_ORIGIN } = env;
  if (!BRIDGE_API_KEY) {
    throw new Error('BRIDGE_API_KEY is not set: start the bridge and use the key it prints');
  }
  const port = Number(PORT ?? 5180);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`PORT must be a port number, got ${PORT}`);
  }
  return {
    bridgeUrl: (BRIDGE_URL ?? 'http://127.0.0.1:4000').replace(/\/+$/, ''),
    apiKey: BRIDGE_API_KEY,
    host: HOST ?? '127.0.0.1',
    port,
    publicOrigin: PUBLIC_ORIGIN ?? `http://localhost:${port}`,
    orgName: BRIDGE_ORG_NAME ?? 'Example host app',
  };
}
