/** Where the report bytes go when `ARTIFACT_STORE` names a bucket: read from the standard AWS variables. */
export interface ObjectStoreSettings {
  bucket: string;
  /** Every key starts with it: empty, or ending in `/`. */
  prefix: string;
  /** The endpoint's origin (`AWS_ENDPOINT_URL_S3`, else AWS's regional endpoint). */
  endpoint: URL;
  region: string;
  /** Bucket in the path (`endpoint/bucket/key`): whenever an endpoint is named (MinIO, R2, GCS). */
  pathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | undefined;
}

/** A setting that cannot work, in one sentence naming it (config.ts makes it a `ConfigError`). */
export class ObjectStoreSettingError extends Error {}

// S3's bucket naming rules (3–63 lower-case letters, digits, dots and hyphens).
const STORE_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** Undefined when `ARTIFACT_STORE` is unset: the bytes stay in the database. */
export function objectStoreSettings(env: NodeJS.ProcessEnv): ObjectStoreSettings | undefined {
  const url = value(env, 'ARTIFACT_STORE');
  if (url === undefined) return undefined;
  const m = STORE_URL.exec(url);
  if (!m) {
    throw new ObjectStoreSettingError(
      'ARTIFACT_STORE: must look like s3://bucket or s3://bucket/prefix (a bucket name of 3–63 lower-case letters, digits, dots and hyphens)',
    );
  }
  const region = value(env, 'AWS_REGION') ?? value(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1';
  const named = value(env, 'AWS_ENDPOINT_URL_S3') ?? value(env, 'AWS_ENDPOINT_URL');
  let endpoint: URL;
  try {
    endpoint = new URL(named ?? `https://s3.${region}.amazonaws.com`);
  } catch {
    throw new ObjectStoreSettingError('AWS_ENDPOINT_URL_S3: must be a URL such as https://s3.example.com');
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new ObjectStoreSettingError('AWS_ENDPOINT_URL_S3: must start with http:// or https://');
  }
  const accessKeyId = value(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = value(env, 'AWS_SECRET_ACCESS_KEY');
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new ObjectStoreSettingError(
      'ARTIFACT_STORE: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the credentials for the bucket',
    );
  }
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return {
    bucket: m[1]!,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint,
    region,
    pathStyle: named !== undefined,
    accessKeyId,
    secretAccessKey,
    sessionToken: value(env, 'AWS_SESSION_TOKEN'),
  };
}
