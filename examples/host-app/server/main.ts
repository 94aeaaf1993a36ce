import { createServer } from 'node:http';
import path from 'node:path';
import { BridgeError } from '@bridgekit/node';
import { createApp } from './app.js';
import { readConfig } from './config.js';
import { ensureOrganization } from './organization.js';
import { createSessionCache } from './session-cache.js';

// build/server/main.js → the page Vite built into dist/.
const PAGE_ROOT = path.resolve(import.meta.dirname, '../../dist');

const config = readConfig();
const organization = await ensureOrganization(config).catch((error: unknown) => {
  const reason = error instanceof BridgeError ? `${error.status} ${error.title}` : String(error);
  console.error(`Could not set up the organization at ${config.bridgeUrl}: ${reason}`);
  console.error('Is the bridge running, and is BRIDGE_API_KEY one of its keys?');
  process.exit(1);
});
const session = createSessionCache({ bridgeUrl: config.bridgeUrl, organization });
const server = createServer(createApp({ config, organization, session, pageRoot: PAGE_ROOT }));

server.listen(config.port, config.host, () => {
  console.log(`Example host app on ${config.publicOrigin}`);
  console.log(`Organization "${organization.name}" (${organization.id}) at ${config.bridgeUrl}`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
