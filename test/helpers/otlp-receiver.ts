import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  status: { code?: number };
  resource: Record<string, string | number | boolean | undefined>;
}

function values(list: Array<{ key: string; value: AnyValue }> | undefined) {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue;
  }
  return out;
}

/**
 * A loopback OTLP/HTTP receiver (what a collector is to the service): accepts `POST /v1/traces`
 * in the JSON encoding, keeps every request body as received and every span decoded.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every export request's body, as text: what left the process, for checks of its content. */
  readonly bodies: string[] = [];
  private server: http.Server | undefined;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
        if (req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
          res.writeHead(415).end();
          return;
        }
        const text = body.toString('utf8');
        this.bodies.push(text);
        const parsed = JSON.parse(text) as {
          resourceSpans: Array<{
            resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
            scopeSpans: Array<{
              spans: Array<{
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                name: string;
                kind: number;
                attributes?: Array<{ key: string; value: AnyValue }>;
                status?: { code?: number };
              }>;
            }>;
          }>;
        };
        for (const rs of parsed.resourceSpans) {
          const resource = values(rs.resource?.attributes);
          for (const ss of rs.scopeSpans) {
            for (const s of ss.spans) {
              this.spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: values(s.attributes),
                status: s.status ?? {},
                resource,
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (!this.server) return resolve();
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
