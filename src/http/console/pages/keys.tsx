import type { ApiMode } from '../../../domain/mode.js';
import type { KeyListing } from '../../../store/tenant-access.js';
import { Csrf } from './layout.js';

/** The lifetimes a new key may be given (the CLI's `--expires-in` forms). */
export const KEY_LIFETIMES: ReadonlyArray<{ value: string; label: string }> = [
  { value: '', label: 'Never expires' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '365d', label: '1 year' },
];

function when(time: string | null, none: string): string {
  return time === null ? none : time.replace('T', ' ').slice(0, 19);
}

function statusOf(key: KeyListing, now: Date): string {
  if (key.revokedAt !== null) return 'Revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return 'Expired';
  return 'Active';
}

/** What a key list is drawn with: `manageCsrf` only for a session that may change keys. */
export interface KeysView {
  keys: KeyListing[];
  now: Date;
  /** The key this session was opened with (marked in the list). */
  sessionKeyId: string | null;
  manageCsrf: string | undefined;
  /** Whether the session may issue live keys (a live key's session). */
  liveAllowed: boolean;
  notice?: string | undefined;
}

function KeyRow({ item, view }: { item: KeyListing; view: KeysView }) {
  const status = statusOf(item, view.now);
  return (
    <tr>
      <td>
        <code>{item.prefix}…</code>
        {item.keyId === view.sessionKeyId ? <span class="hint"> (this session's key)</span> : null}
      </td>
      <td>{item.mode === 'live' ? 'Live' : 'Test'}</td>
      <td>{when(item.createdAt, '—')}</td>
      <td>{when(item.expiresAt, 'Never')}</td>
      <td>{when(item.revokedAt, 'No')}</td>
      <td>
        <span class={`badge key-${status.toLowerCase()}`}>{status}</span>
      </td>
      {view.manageCsrf !== undefined ? (
        <td>
          {status === 'Active' ? (
            <a href={`/console/keys/${item.keyId}/revoke`} aria-label={`Revoke key ${item.prefix}`}>
              Revoke
            </a>
          ) : (
            '—'
          )}
        </td>
      ) : null}
    </tr>
  );
}

function CreateForm({ csrf, liveAllowed }: { csrf: string; liveAllowed: boolean }) {
  return (
    <form method="post" action="/console/keys" class="filters">
      <Csrf token={csrf} />
      {liveAllowed ? (
        <div class="field">
          <label for="k-mode">Mode</label>
          <select id="k-mode" name="mode">
            <option value="live">Live (hs_live_…)</option>
            <option value="test">Test (hs_test_…: test data only)</option>
          </select>
        </div>
      ) : (
        <input type="hidden" name="mode" value="test" />
      )}
      <div class="field">
        <label for="k-expires">Expires</label>
        <select id="k-expires" name="expiresIn">
          {KEY_LIFETIMES.map((l) => (
            <option key={l.value} value={l.value}>
              {l.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">Create a key</button>
    </form>
  );
}

/** The account's keys, newest first; for a `manage` session, "Create a key" and "Revoke". */
export function Keys({ view }: { view: KeysView }) {
  return (
    <>
      {view.notice ? (
        <p class="notice" role="status">
          {view.notice}
        </p>
      ) : null}
      <p>Keys are shown by their first characters only: a key itself is shown once, when it is created.</p>
      {view.manageCsrf !== undefined ? (
        <section aria-labelledby="create-key">
          <h2 id="create-key">Create a key</h2>
          <CreateForm csrf={view.manageCsrf} liveAllowed={view.liveAllowed} />
        </section>
      ) : null}
      <table class="list">
        <caption>API keys, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Mode</th>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Expires (UTC)</th>
            <th scope="col">Revoked (UTC)</th>
            <th scope="col">Status</th>
            {view.manageCsrf !== undefined ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {view.keys.map((item) => (
            <KeyRow key={item.keyId} item={item} view={view} />
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The new key, shown on this page only: it is stored as a hash and cannot be shown again. */
export function CreatedKey({
  apiKey,
  mode,
  expiresAt,
}: {
  apiKey: string;
  mode: ApiMode;
  expiresAt: string | null;
}) {
  return (
    <section aria-labelledby="new-key" class="secret">
      <h2 id="new-key">Your new {mode} key</h2>
      <p>
        Copy it now and keep it somewhere safe: this is the only time it is shown. It{' '}
        {expiresAt === null ? 'does not expire' : `expires at ${when(expiresAt, '')} UTC`}.
      </p>
      <p>
        <code id="new-key-value" class="secret-value">
          {apiKey}
        </code>
      </p>
      {/* Shown by the script only: without it the key is selectable text. */}
      <button type="button" class="copy" data-copy="new-key-value" hidden>
        Copy the key
      </button>
      <p class="hint" role="status" id="copy-status" />
      <p>
        <a href="/console/keys">Done: back to the keys</a>
      </p>
    </section>
  );
}

/** The revocation's confirmation step: a plain form, and a way back. */
export function RevokeKey({ item, csrf, ownKey }: { item: KeyListing; csrf: string; ownKey: boolean }) {
  return (
    <>
      <p>
        Revoke the {item.mode} key <code>{item.prefix}…</code> created {when(item.createdAt, '')} UTC?
        Requests with it are refused from now on, and this cannot be undone.
      </p>
      {ownKey ? (
        <p class="warning">
          <strong>Warning:</strong> this console session was opened with this key: revoking it signs you out.
        </p>
      ) : null}
      <form method="post" action={`/console/keys/${item.keyId}/revoke`}>
        <Csrf token={csrf} />
        <button type="submit">Revoke this key</button>
      </form>
      <p>
        <a href="/console/keys">Cancel: keep the key</a>
      </p>
    </>
  );
}
