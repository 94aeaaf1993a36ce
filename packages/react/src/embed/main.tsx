import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles.css';
import './embed.css';
import { EmbedApp, readEmbedConfig } from './embed-app';

// Entry of the full-embed bundle (`npm run build:embed`): mounts into the bridge's page shell.
const root = document.getElementById('bridgekit-root');
const config = root ? readEmbedConfig(root.dataset.embed) : null;
if (root && config) {
  createRoot(root).render(
    <StrictMode>
      <EmbedApp {...config} />
    </StrictMode>,
  );
}
