import { errorCodesOf, type RouteId, routes, statusOf, TITLE_OF_CODE } from '@bridgekit/contract';

const OPERATIONS = (Object.keys(routes) as RouteId[]).map((id) => ({
  id,
  method: routes[id].method.toUpperCase(),
  path: new RegExp(`^${routes[id].path.replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/** The operation a request addresses, by method and path (undefined: no route). */
export function operationOf(method: string, url: string): RouteId | undefined {
  const path = url.split('?', 1)[0]!;
  const upper = method.toUpperCase();
  return OPERATIONS.find((op) => op.method === upper && op.path.test(path))?.id;
}

/**
 * Why an error answer breaks the contract, if it does: a code the operation does not declare
 * (packages/contract/src/route-errors.ts), or a status other than its code's. Every request a
 * server test sends through the test bridge is checked, so the whole suite keeps the
 * document's per-operation errors true.
 */
export function undeclaredError(
  method: string,
  url: string,
  status: number,
  body: unknown,
): string | undefined {
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (status < 400 || typeof code !== 'string') return undefined;
  const id = operationOf(method, url);
  if (!id) return undefined;
  const title = TITLE_OF_CODE[code as keyof typeof TITLE_OF_CODE];
  if (!title || !errorCodesOf(id).includes(code as never)) {
    return `${id} answered ${status} ${code}, which route-errors.ts does not declare for it`;
  }
  if (statusOf[title] !== status)
    return `${id} answered ${code} with ${status}, not ${statusOf[title]}`;
  return undefined;
}
