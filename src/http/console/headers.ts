/**
 * The headers of every console answer (issue 31): no script but the console's own file, nothing
 * embedded, never framed except by the partner sites the operator listed, never cached, never
 * a referrer (the sign-in link's token must not leak to anything the first page loads).
 */
export function consoleHeaders(frameAncestors: readonly string[]): Record<string, string> {
  const ancestors = frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'";
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // The html report preview: served by the console itself, shown in a sandboxed frame.
    "frame-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
  return {
    'content-security-policy': csp,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    ...(frameAncestors.length > 0 ? {} : { 'x-frame-options': 'DENY' }),
  };
}
