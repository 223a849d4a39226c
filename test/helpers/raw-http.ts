import net from 'node:net';

/** One HTTP response read off a raw socket (interim 1xx answers skipped). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawOutcome {
  /** The final response, when one arrived in full. */
  response?: RawResponse;
  /** Everything the server sent. */
  raw: string;
  /** A socket error (ECONNRESET, EPIPE) seen before the server closed. */
  error?: string;
}

/** Parses the responses in `raw`; returns the first final one that arrived in full. */
export function parseResponse(raw: string): RawResponse | undefined {
  return parseResponses(raw)[0];
}

/**
 * Every final response in `raw` that arrived in full, in order (interim 1xx answers skipped).
 * `bodyless` says which responses carry no body whatever their Content-Length (answers to HEAD).
 */
export function parseResponses(raw: string, bodyless = false): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return out;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 'NaN');
    if (Number.isNaN(status)) return out;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    if (status < 200) continue;
    const length = bodyless ? 0 : Number(headers['content-length'] ?? '0');
    const body = Buffer.from(rest, 'latin1');
    if (body.length < length) return out;
    out.push({ status, headers, body: body.subarray(0, length).toString('utf8') });
    rest = body.subarray(length).toString('latin1');
  }
}

/**
 * Writes `request` as it is, half-closes the socket (so a server waiting for more bytes sees the
 * end of the stream rather than a stall), and reads until the server closes or `timeoutMs`.
 */
export function rawRequest(url: string, request: string | Buffer, timeoutMs = 20_000): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = net.connect(Number(port), hostname);
    const timer = setTimeout(() => {
      error = 'TIMEOUT';
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const response = parseResponse(raw);
      resolve({ raw, ...(response ? { response } : {}), ...(error ? { error } : {}) });
    });
    socket.end(request);
  });
}

/** The error envelope of a raw response, or undefined when the body is not one. */
export function envelopeOf(
  response: RawResponse | undefined,
): { code: string; message: string; requestId: string } | undefined {
  if (!response) return undefined;
  try {
    const parsed = JSON.parse(response.body) as {
      error?: { code: string; message: string; requestId: string };
    };
    return parsed.error;
  } catch {
    return undefined;
  }
}
