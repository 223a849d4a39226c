import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { Client, S3Error } from 'minio';
import { sha256Hex } from '../../hash.js';
import {
  type ArtifactBytes,
  type ArtifactStore,
  type DirectLinkRequest,
  ObjectStoreUnavailableError,
  type StoredPage,
} from '../artifact-store.js';
import { countObjectOperation as counted } from '../object-operations.js';
import type { ObjectStoreSettings } from './settings.js';
import { putObject } from './signed-put.js';

/** A connection that moves no byte for this long is cut: a hung store fails instead of waiting. */
const IDLE_TIMEOUT_MS = 10_000;

type AgentOptions = http.AgentOptions & { idleMs: number };

/**
 * Keep-alive, and a socket idle for `idleMs` destroyed: the client takes no timeout of its own,
 * and a store that accepted the connection and went quiet would otherwise hold a step forever.
 */
function agentFor(secure: boolean, options: AgentOptions): http.Agent {
  const Base = secure ? https.Agent : http.Agent;
  const agent = new Base({ keepAlive: true, maxSockets: 32, ...options });
  const create = agent.createConnection.bind(agent) as (...args: unknown[]) => Duplex;
  agent.createConnection = ((...args: unknown[]) => {
    const socket = create(...args) as Duplex & { setTimeout(ms: number, cb: () => void): void };
    socket.setTimeout(options.idleMs, () => socket.destroy(new Error('the object store stopped answering')));
    return socket;
  }) as typeof agent.createConnection;
  return agent;
}

/** The metadata each object carries: the sha256 its row records (checked before a redirect). */
const SHA256_META = 'sha256';

function isMissing(error: unknown): boolean {
  return error instanceof S3Error && (error.code === 'NoSuchKey' || error.code === 'NotFound');
}

/**
 * Report bytes as objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Google
 * Cloud Storage's interoperability API), one object per artifact named by its id under the
 * prefix. The client is MinIO's (`minio`): about a third of the CPU per 37 KiB PUT of
 * `@aws-sdk/client-s3` configured for it, measured (docs/object-storage.md); the render
 * step's PUTs, the one hot path, go out signed by `aws4` instead (`signed-put.ts`).
 */
export class S3ArtifactStore implements ArtifactStore {
  readonly inDatabase = false;
  readonly client: Client;
  readonly bucket: string;
  private readonly prefix: string;
  private readonly agent: http.Agent;
  private readonly settings: ObjectStoreSettings;

  constructor(settings: ObjectStoreSettings, options: { idleTimeoutMs?: number } = {}) {
    this.settings = settings;
    const secure = settings.endpoint.protocol === 'https:';
    const port = settings.endpoint.port === '' ? undefined : Number(settings.endpoint.port);
    this.agent = agentFor(secure, { idleMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS });
    this.client = new Client({
      endPoint: settings.endpoint.hostname,
      ...(port === undefined ? {} : { port }),
      useSSL: secure,
      accessKey: settings.accessKeyId,
      secretKey: settings.secretAccessKey,
      ...(settings.sessionToken === undefined ? {} : { sessionToken: settings.sessionToken }),
      region: settings.region,
      pathStyle: settings.pathStyle,
      transportAgent: this.agent,
    });
    this.bucket = settings.bucket;
    this.prefix = settings.prefix;
  }

  key(artifactId: string): string {
    return `${this.prefix}${artifactId}`;
  }

  async write(artifacts: readonly ArtifactBytes[]): Promise<void> {
    try {
      await Promise.all(artifacts.map((a) => this.put(a.artifactId, a.body, a.sha256)));
    } catch (error) {
      counted('write', 'error', artifacts.length);
      throw new ObjectStoreUnavailableError('write an object', error);
    }
    counted('write', 'ok', artifacts.length);
  }

  async restore(artifactId: string, body: Buffer): Promise<void> {
    await this.write([{ artifactId, body, sha256: sha256Hex(body) }]);
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    try {
      const stream = await this.client.getObject(this.bucket, this.key(artifactId));
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      counted('read', 'ok');
      return Buffer.concat(chunks);
    } catch (error) {
      if (isMissing(error)) {
        counted('read', 'missing');
        return undefined;
      }
      counted('read', 'error');
      throw new ObjectStoreUnavailableError('read an object', error);
    }
  }

  async delete(artifactIds: readonly string[]): Promise<void> {
    if (artifactIds.length === 0) return;
    try {
      await this.client.removeObjects(
        this.bucket,
        artifactIds.map((id) => this.key(id)),
      );
    } catch (error) {
      counted('delete', 'error', artifactIds.length);
      throw new ObjectStoreUnavailableError('delete objects', error);
    }
    counted('delete', 'ok', artifactIds.length);
  }

  /**
   * A presigned GET of the object, valid for `expiresSeconds`, once a HEAD found it with the
   * size and the sha256 (recorded as its metadata when written) the row expects; undefined when
   * it is missing or does not match, so the download is served (and rendered again) here.
   */
  async directLink(artifactId: string, expected: DirectLinkRequest): Promise<string | undefined> {
    const key = this.key(artifactId);
    let stat: { size: number; metaData: Record<string, unknown> };
    try {
      stat = await this.client.statObject(this.bucket, key);
    } catch (error) {
      if (isMissing(error)) {
        counted('redirect', 'missing');
        return undefined;
      }
      counted('redirect', 'error');
      throw new ObjectStoreUnavailableError('look up an object', error);
    }
    if (stat.size !== expected.byteSize || stat.metaData[SHA256_META] !== expected.sha256) {
      counted('redirect', 'missing');
      return undefined;
    }
    const url = await this.client.presignedGetObject(this.bucket, key, expected.expiresSeconds, {
      'response-content-type': expected.contentType,
      'response-content-disposition': expected.contentDisposition,
    });
    counted('redirect', 'ok');
    return url;
  }

  async stored(before: Date, after: string | undefined, limit: number): Promise<StoredPage> {
    const artifactIds: string[] = [];
    let seen = 0;
    let last: string | undefined;
    const listing = this.client.listObjectsV2(
      this.bucket,
      this.prefix,
      true,
      after === undefined ? '' : this.key(after),
    );
    try {
      for await (const item of listing as AsyncIterable<{ name?: string; lastModified?: Date }>) {
        if (item.name === undefined) continue;
        last = item.name.slice(this.prefix.length);
        if (item.lastModified !== undefined && item.lastModified < before) artifactIds.push(last);
        if (++seen >= limit) break;
      }
    } catch (error) {
      throw new ObjectStoreUnavailableError('list objects', error);
    } finally {
      listing.destroy();
    }
    return { artifactIds, next: seen >= limit ? last : undefined };
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  /**
   * The start-up check: the bucket answers, and a probe object can be written, read back and
   * deleted. Throws one sentence naming the setting to fix.
   */
  async check(): Promise<void> {
    const where = `s3://${this.bucket}/${this.prefix}`;
    let exists: boolean;
    try {
      exists = await this.client.bucketExists(this.bucket);
    } catch (error) {
      throw new Error(probeFailure(where, error));
    }
    if (!exists) {
      throw new Error(
        `ARTIFACT_STORE: the bucket ${this.bucket} does not exist at this endpoint (AWS_ENDPOINT_URL_S3, AWS_REGION); create it or name another`,
      );
    }
    const key = `${this.prefix}.probe-${randomUUID()}`;
    const body = Buffer.from('healthspan start-up probe');
    try {
      await this.client.putObject(this.bucket, key, body, body.length);
      const read = await this.client.getObject(this.bucket, key);
      const chunks: Buffer[] = [];
      for await (const chunk of read) chunks.push(chunk as Buffer);
      if (!Buffer.concat(chunks).equals(body)) throw new Error('read back other bytes');
      await this.client.removeObject(this.bucket, key);
    } catch (error) {
      throw new Error(probeFailure(where, error));
    }
  }

  /** Not the client's `putObject`: a PUT signed with the row's sha256 costs half its CPU. */
  private async put(artifactId: string, body: Buffer, sha256: string): Promise<void> {
    await putObject(this.settings, this.agent, {
      key: this.key(artifactId),
      body,
      sha256,
      headers: { 'Content-Type': 'application/octet-stream', [`X-Amz-Meta-${SHA256_META}`]: sha256 },
    });
  }
}

/** The start-up check's one sentence: which setting to look at for what the store answered. */
function probeFailure(where: string, error: unknown): string {
  const code = error instanceof S3Error ? error.code : (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
    case 'AccessDenied':
    case 'Forbidden':
      return `ARTIFACT_STORE: ${where} refused these credentials (${code}); check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and that they may put, get and delete objects there`;
    case 'NoSuchBucket':
      return `ARTIFACT_STORE: the bucket of ${where} does not exist at this endpoint (AWS_ENDPOINT_URL_S3, AWS_REGION)`;
    default:
      return `AWS_ENDPOINT_URL_S3: the object store for ${where} did not answer as S3 does (${code ?? (error instanceof Error ? error.message : 'no answer')}); check the endpoint and that it is running`;
  }
}
