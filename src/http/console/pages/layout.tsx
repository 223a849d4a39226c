import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { ApiMode } from '../../../domain/mode.js';

/** What every signed-in page's frame shows: where the person is, the mode, and how to leave. */
export interface Frame {
  csrf: string;
  mode: ApiMode;
  /** Whether the session may switch modes (a test key's session stays in test mode). */
  canSwitch: boolean;
  scope: 'read' | 'manage';
  current: 'overview' | 'submissions' | 'callbacks' | 'keys' | 'audit' | 'erasures';
}

const NAV: Array<{ id: Frame['current']; href: string; label: string }> = [
  { id: 'overview', href: '/console/', label: 'Overview' },
  { id: 'submissions', href: '/console/submissions', label: 'Submissions' },
  { id: 'callbacks', href: '/console/callbacks', label: 'Callbacks' },
  { id: 'keys', href: '/console/keys', label: 'API keys' },
  { id: 'audit', href: '/console/audit', label: 'Audit trail' },
  { id: 'erasures', href: '/console/erasures', label: 'Erasures' },
];

/** A whole page as HTML: preact escapes every text and attribute value it is given. */
export function page(title: string, body: ComponentChildren): string {
  return `<!doctype html>${renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · healthspan console`}</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer />
      </head>
      <body>{body}</body>
    </html>,
  )}`;
}

export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

function ModeSwitch({ frame }: { frame: Frame }) {
  const other: ApiMode = frame.mode === 'live' ? 'test' : 'live';
  return (
    <div class="mode">
      <p>
        <span class={`badge mode-${frame.mode}`}>{frame.mode === 'live' ? 'Live data' : 'Test data'}</span>
      </p>
      {frame.canSwitch ? (
        <form method="post" action="/console/mode">
          <Csrf token={frame.csrf} />
          <input type="hidden" name="mode" value={other} />
          <button type="submit">{other === 'test' ? 'Switch to test mode' : 'Switch to live mode'}</button>
        </form>
      ) : (
        <p class="hint">Opened with a test key: test data only.</p>
      )}
    </div>
  );
}

/** The signed-in frame: a skip link, the navigation, the live/test switch and sign-out. */
export function Layout({
  frame,
  title,
  children,
}: {
  frame: Frame;
  title: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">healthspan console</p>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.id}>
                <a href={item.href} aria-current={item.id === frame.current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ModeSwitch frame={frame} />
        <form method="post" action="/console/sign-out" class="sign-out">
          <Csrf token={frame.csrf} />
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main id="main">
        <h1>{title}</h1>
        {frame.scope === 'read' ? <p class="hint">Read-only session: nothing here can be changed.</p> : null}
        {children}
      </main>
    </>
  );
}

/** A page for someone not signed in, or a refusal: plain words and what to do next. */
export function messagePage(title: string, lines: string[]): string {
  return page(
    title,
    <main id="main">
      <h1>{title}</h1>
      {lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </main>,
  );
}
