type Json = Record<string, unknown>;

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const pretty = (value: unknown) => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

/** A self-contained HTML reference built from the OpenAPI document: no scripts, no network. */
export function renderDocsPage(doc: Json): string {
  const info = doc.info as { title: string; description: string; version: string };
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = (op.tags as string[])[0] ?? 'Other';
      const params = (op.parameters as Json[]).map(
        (p) =>
          `<li><code>${escapeHtml(String(p.name))}</code> (${escapeHtml(String(p.in))}${p.required ? ', required' : ''}) ${pretty(p.schema)}</li>`,
      );
      const body = (op.requestBody as Json | undefined)?.content as
        | Record<string, Json>
        | undefined;
      const responses = Object.entries(op.responses as Record<string, Json>).map(([status, r]) => {
        const schema = (r.content as Record<string, Json> | undefined)?.['application/json']
          ?.schema;
        const shown = schema && !('$ref' in (schema as Json)) ? pretty(schema) : '';
        return `<li><b>${status}</b> ${escapeHtml(String(r.description))}${shown}</li>`;
      });
      const section = `<section id="${escapeHtml(String(op.operationId))}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${escapeHtml(String(op.summary))}${(op.security as unknown[] | undefined)?.length === 0 ? ' <em>(no auth)</em>' : ''}</p>
${params.length ? `<h4>Parameters</h4><ul>${params.join('')}</ul>` : ''}
${body ? `<h4>Body</h4>${pretty(body['application/json']?.schema)}` : ''}
<h4>Responses</h4><ul>${responses.join('')}</ul></section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), section]);
    }
  }
  const schemas = (doc.components as { schemas: Json }).schemas;
  const toc = [...byTag.keys()]
    .map((t) => `<li><a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a></li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:0 auto;padding:1rem 1.5rem;color:#1f2328}
pre{background:#f6f8fa;padding:.6rem;overflow:auto;font-size:12px;border-radius:6px}
section{border-top:1px solid #d0d7de;padding:.5rem 0}
.m{display:inline-block;min-width:4.5em;font-size:12px;padding:2px 6px;border-radius:4px;color:#fff;background:#57606a}
.get{background:#0969da}.post{background:#1a7f37}.patch{background:#9a6700}.delete{background:#cf222e}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}pre{background:#161b22}}
</style></head><body>
<h1>${escapeHtml(info.title)} <small>${escapeHtml(info.version)}</small></h1>
<p>${escapeHtml(info.description)}</p>
<p>Authenticate with <code>Authorization: Bearer &lt;API key or session token&gt;</code>.
Errors are <code>{"error": {"title", "detail", "fieldErrors"?}}</code>.
Machine-readable: <a href="/api/public/openapi.json">/api/public/openapi.json</a>.</p>
<ul>${toc}</ul>
${[...byTag.entries()].map(([tag, sections]) => `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${sections.join('')}`).join('')}
<h2>Schemas</h2>
${Object.entries(schemas)
  .map(([name, s]) => `<h3 id="schema-${escapeHtml(name)}">${escapeHtml(name)}</h3>${pretty(s)}`)
  .join('')}
</body></html>`;
}
