import http from 'node:http';
import https from 'node:https';
import aws4 from 'aws4';
import type { ObjectStoreSettings } from './settings.js';

/** What S3 answered other than 2xx: its error code (from the XML body) and HTTP status. */
export class ObjectPutError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
  ) {
    super(`the object store answered ${status} ${code}`);
  }
}

export interface SignedPut {
  key: string;
  body: Buffer;
  /** The body's sha256 (hex), already computed for the artifact's row. */
  sha256: string;
  headers: Record<string, string>;
}

/**
 * One PUT of an object over `agent`, signed with SigV4 (`aws4`). The payload hash the signature
 * covers is the sha256 the render step computed for the row anyway, so the body is not hashed a
 * second time here (the minio client hashed every body over http, and took twice the CPU per
 * PUT: docs/object-storage.md); S3 still checks the bytes against it.
 */
export function putObject(settings: ObjectStoreSettings, agent: http.Agent, put: SignedPut): Promise<void> {
  const secure = settings.endpoint.protocol === 'https:';
  const encodedKey = put.key.split('/').map(encodeURIComponent).join('/');
  // Path style names the bucket in the path (MinIO, R2, GCS); AWS's own endpoint, in the host.
  const hostname = settings.pathStyle
    ? settings.endpoint.hostname
    : `${settings.bucket}.${settings.endpoint.hostname}`;
  const host = settings.endpoint.port === '' ? hostname : `${hostname}:${settings.endpoint.port}`;
  const path = settings.pathStyle ? `/${settings.bucket}/${encodedKey}` : `/${encodedKey}`;
  const signed = aws4.sign(
    {
      host,
      path,
      method: 'PUT',
      service: 's3',
      region: settings.region,
      headers: {
        ...put.headers,
        'Content-Length': String(put.body.length),
        'X-Amz-Content-Sha256': put.sha256,
      },
    },
    {
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      ...(settings.sessionToken === undefined ? {} : { sessionToken: settings.sessionToken }),
    },
  );
  const request = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        protocol: settings.endpoint.protocol,
        hostname,
        port: settings.endpoint.port === '' ? undefined : settings.endpoint.port,
        method: 'PUT',
        path,
        headers: signed.headers as http.OutgoingHttpHeaders,
        agent,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          res.resume();
          res.once('end', resolve);
          res.once('error', reject);
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () =>
          reject(new ObjectPutError(errorCode(Buffer.concat(chunks).toString()), status)),
        );
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(put.body);
  });
}

function errorCode(xml: string): string {
  return /<Code>([^<]*)<\/Code>/.exec(xml)?.[1] ?? 'UnknownError';
}
