import { setNonce } from 'get-nonce';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../styles.css';
import './embed.css';
import { EmbedApp, readEmbedConfig, takeHandoff } from './embed-app';
import { reportedFramingOrigin } from './host-messages';

// Entry of the full-embed bundle (`npm run build:embed`): mounts into the bridge's page shell.
// The page's CSP allows inline <style> only with its nonce: Radix's scroll lock (through
// react-style-singleton) adds one when a dialog opens, and takes the nonce from get-nonce.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
if (nonce) setNonce(nonce);
// First thing: the single-use code leaves the address (and so history) before anything runs.
const { code, signInOrigin } = takeHandoff();
const root = document.getElementById('bridgekit-root');
const config = root ? readEmbedConfig(root.dataset.embed) : null;
if (root && config) {
  createRoot(root).render(
    <StrictMode>
      <EmbedApp
        config={config}
        code={code}
        ancestorOrigin={reportedFramingOrigin(signInOrigin)}
        signInOrigin={signInOrigin}
      />
    </StrictMode>,
  );
}
