import type { RunningService } from '../../src/service.js';

/** Asks for a console link with `apiKey` (`POST /v1/console-sessions`). */
export async function consoleLink(
  service: RunningService,
  apiKey: string,
  body: Record<string, unknown> = { scope: 'read' },
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${service.url}/v1/console-sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/**
 * Opens a sign-in link without following the redirect: the answer and the cookie it set. The link
 * names PUBLIC_BASE_URL; it is opened on the test service's own address.
 */
export async function openLink(
  service: RunningService,
  url: string,
): Promise<{ res: Response; cookie: string | undefined }> {
  const link = new URL(url);
  const res = await fetch(`${service.url}${link.pathname}${link.search}`, { redirect: 'manual' });
  const set = res.headers.get('set-cookie');
  return { res, cookie: set ? set.split(';')[0] : undefined };
}

/** A signed-in console session: a link made with `apiKey`, opened. */
export async function signIn(
  service: RunningService,
  apiKey: string,
  body: Record<string, unknown> = { scope: 'read' },
): Promise<string> {
  const link = await consoleLink(service, apiKey, body);
  if (link.status !== 201) throw new Error(`link: ${link.status} ${JSON.stringify(link.json)}`);
  const { cookie } = await openLink(service, String(link.json.url));
  if (!cookie) throw new Error('no cookie');
  return cookie;
}

/** A console page as the browser gets it with `cookie`. */
export async function consoleGet(
  service: RunningService,
  path: string,
  cookie: string | undefined,
): Promise<{ res: Response; text: string }> {
  const res = await fetch(`${service.url}${path}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  return { res, text: await res.text() };
}

/** A form post to the console, as a browser sends it. */
export async function consolePost(
  service: RunningService,
  path: string,
  cookie: string | undefined,
  fields: Record<string, string>,
): Promise<{ res: Response; text: string }> {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
  });
  return { res, text: await res.text() };
}

/** The CSRF token of the forms on a console page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no CSRF token on the page');
  return match[1];
}
