const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const shell = (
  title: string,
  body: string,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:0;padding:1.5rem;color:#1f2328;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}}h1{font-size:1.2rem}</style>
</head><body>${body}</body></html>`;

/** A small page for full-embed errors, shown inside the host's iframe. */
export function renderMessagePage(title: string, detail: string): string {
  return shell(
    title,
    `<main role="alert"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></main>`,
  );
}

/** The full-embed page shell; the kit's bundle (when built) mounts into #bridgekit-root. */
export function renderEmbedPage(input: {
  orgName: string;
  orgId: string;
  memberId: string;
  script?: string;
}): string {
  const data = escapeHtml(JSON.stringify({ orgId: input.orgId, memberId: input.memberId }));
  return shell(
    input.orgName,
    `<main id="bridgekit-root" data-embed="${data}"><h1>${escapeHtml(input.orgName)}</h1></main>${
      input.script ? `<script type="module" src="${escapeHtml(input.script)}"></script>` : ''
    }`,
  );
}
