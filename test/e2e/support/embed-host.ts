import type { Bundle } from './host-bundle';
import { send, startHttpServer, type TestServer } from './http-server';

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The plain-JavaScript host of docs/embedding.md: an iframe on the signed URL that follows the page's
 * height and learns when its session ended, checking the sender's origin and window. It also
 * keeps every message from the bridge in `window.bk` for the tests.
 */
export const plainHost = (src: string) => `<!doctype html><html lang="en"><head>
<meta charset="utf-8"><title>Reports</title></head><body><h1>Reports</h1>
<iframe id="bridge" title="Bridgekit" src="${attr(src)}" allow="clipboard-write" style="width:100%;border:0;height:300px"></iframe>
<script>
window.bk = { messages: [], ended: 0 };
const frame = document.getElementById('bridge');
const BRIDGE = new URL(frame.src).origin;
window.addEventListener('message', (event) => {
  if (event.origin !== BRIDGE || event.source !== frame.contentWindow) return;
  window.bk.messages.push(event.data);
  if (event.data?.type === 'bridgekit:resize') frame.style.height = event.data.height + 'px';
  if (event.data?.type === 'bridgekit:session-ended') window.bk.ended += 1;
});
</script></body></html>`;

const reactHost = (src: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Reports</title></head><body><h1>Reports</h1><div id="host" data-src="${attr(src)}"></div>
<script type="module" src="/bridge-embed.js"></script></body></html>`;

/**
 * A host site on `http://localhost:<port>` (another site than the bridge on 127.0.0.1) whose
 * pages frame the URL given in `?src=`: `/plain` with docs/embedding.md's plain JavaScript, `/react`
 * with `BridgeEmbed`. The tests sign tokens and build the URLs as the host's backend would.
 */
export async function startEmbedHost(options: { bundle: Bundle }): Promise<TestServer> {
  return startHttpServer((_req, res, url) => {
    const src = url.searchParams.get('src') ?? '';
    if (url.pathname === '/plain') {
      send(res, 200, 'text/html; charset=utf-8', plainHost(src));
    } else if (url.pathname === '/react') {
      send(res, 200, 'text/html; charset=utf-8', reactHost(src));
    } else if (url.pathname === '/bridge-embed.js') {
      send(res, 200, 'text/javascript; charset=utf-8', options.bundle.js);
    } else {
      send(res, 404, 'text/plain', 'not found');
    }
  });
}
