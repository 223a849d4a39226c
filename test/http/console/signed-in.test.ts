import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleGet, consolePost, signIn } from '../../helpers/console.js';
import {
  createAccount,
  startTestService,
  type TestAccount,
  type TestService,
} from '../../helpers/service.js';

/**
 * The console's one session check (issue 40): every page and action but signing in and the
 * assets is registered in the signed-in scope, whose hook answers a request without a session
 * with the signed-out page (`401`) and a form post without the session's CSRF token with `403`,
 * before any handler runs.
 */

let service: TestService;
let account: TestAccount;

beforeAll(async () => {
  service = await startTestService();
  account = await createAccount(service);
});

afterAll(async () => {
  await service?.stop();
});

const ID = '0190a7e0-0000-7000-8000-000000000000';

const PAGES = [
  '/console/',
  '/console/submissions',
  `/console/submissions/${ID}`,
  `/console/artifacts/${ID}/preview`,
  `/console/results/${ID}/fhir`,
  '/console/audit',
  '/console/keys',
  `/console/keys/${ID}/revoke`,
  '/console/erasures',
  `/console/erasures/${ID}`,
  '/console/callbacks',
  `/console/callbacks/events/${ID}`,
  `/console/callbacks/recoveries/${ID}`,
];

const ACTIONS = [
  `/console/submissions/${ID}/resend-callback`,
  '/console/sign-out',
  '/console/keys',
  `/console/keys/${ID}/revoke`,
  '/console/erasures',
  '/console/erasures/confirm',
  '/console/callbacks/endpoint',
  '/console/callbacks/enable',
  `/console/callbacks/events/${ID}/redeliver`,
  '/console/callbacks/rotate-secret',
  '/console/callbacks/recover',
  '/console/mode',
];

/** What is open without a session: the sign-in link's page and the two assets. */
const OPEN = ['/console/sign-in', '/console/assets/console.css', '/console/assets/console.js'];

/** How many routes (HEAD aside) the app has under /console, read from its own route tree. */
function consoleRouteCount(): number {
  const lines = service.app.printRoutes({ commonPrefix: false }).split('\n');
  const start = lines.findIndex((line) => /── \/console \(/.test(line));
  const depth = (line: string) => line.indexOf('──');
  const subtree = [lines[start] ?? ''];
  for (const line of lines.slice(start + 1)) {
    if (depth(line) <= depth(lines[start] ?? '')) break;
    subtree.push(line);
  }
  return subtree
    .flatMap((line) => /\(([^)]*)\)/.exec(line)?.[1]?.split(', ') ?? [])
    .filter((method) => method !== 'HEAD').length;
}

describe('the signed-in scope', () => {
  it('holds every console route but signing in and the assets (this list is the whole console)', () => {
    expect(consoleRouteCount()).toBe(PAGES.length + ACTIONS.length + OPEN.length);
  });

  it('answers every page and action without a session with the signed-out page (401), the cookie cleared', async () => {
    for (const path of PAGES) {
      const { res, text } = await consoleGet(service, path, undefined);
      expect(res.status, path).toBe(401);
      expect(text, path).toContain('You are not signed in');
    }
    for (const path of ACTIONS) {
      const { res, text } = await consolePost(service, path, 'healthspan_console=made-up', {});
      expect(res.status, path).toBe(401);
      expect(text, path).toContain('You are not signed in');
      expect(res.headers.get('set-cookie'), path).toMatch(/Max-Age=0/);
    }
  });

  it("refuses every action of a signed-in session without the session's CSRF token (403)", async () => {
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    for (const path of ACTIONS) {
      const { res, text } = await consolePost(service, path, cookie, { _csrf: 'not-the-token' });
      expect(res.status, path).toBe(403);
      expect(text, path).toContain('This form has expired');
    }
    // The session is still open: the refusals changed nothing, signing out included.
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(200);
  });
});
