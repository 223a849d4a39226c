import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup, type Resolver, resolveAllowed } from '../../src/webhooks/guard.js';

let server: http.Server;
let port: number;
let received = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received += 1;
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

type Outcome = { status: number } | { code: string | undefined; message: string };

function post(options: http.RequestOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request({ method: 'POST', port, path: '/hook', ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code, message: err.message }));
    req.end('{}');
  });
}

describe('guardedLookup at connect time', () => {
  it('refuses to dial localhost (loopback) and the server receives nothing', async () => {
    const before = received;
    const outcome = await post({ host: 'localhost', lookup: guardedLookup({ allowInsecure: false }) });
    expect(outcome).toMatchObject({ code: 'EBLOCKEDADDRESS', message: expect.stringContaining('loopback') });
    expect(received).toBe(before);
  });

  it('refuses with the single-address form too (autoSelectFamily off)', async () => {
    const before = received;
    const outcome = await post({
      host: 'localhost',
      family: 4,
      autoSelectFamily: false,
      lookup: guardedLookup({ allowInsecure: false }),
    } as http.RequestOptions);
    expect(outcome).toMatchObject({ code: 'EBLOCKEDADDRESS' });
    expect(received).toBe(before);
  });

  it('connects with allowInsecure: true', async () => {
    const before = received;
    const outcome = await post({
      host: 'localhost',
      family: 4,
      lookup: guardedLookup({ allowInsecure: true }),
    });
    expect(outcome).toEqual({ status: 204 });
    expect(received).toBe(before + 1);
  });

  it('refuses an address that changed to loopback after the registration check (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls += 1;
      return calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    };

    const registration = await resolveAllowed('rebind.example', { allowInsecure: false, lookup: rebinding });
    expect(registration.ok).toBe(true);

    const before = received;
    const outcome = await post({
      host: 'rebind.example',
      lookup: guardedLookup({ allowInsecure: false, resolve: rebinding }),
    });
    expect(outcome).toMatchObject({ code: 'EBLOCKEDADDRESS', message: expect.stringContaining('127.0.0.1') });
    expect(calls).toBe(2);
    expect(received).toBe(before);
  });

  it('dials exactly the address the lookup returned', async () => {
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const outcome = await post({
      host: 'anything.example',
      lookup: guardedLookup({ allowInsecure: true, resolve }),
    });
    expect(outcome).toEqual({ status: 204 });
  });

  it('handles the all: true form: every candidate must be public', async () => {
    const publicOnly = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    const lookup = guardedLookup({ allowInsecure: false, resolve: async () => publicOnly });
    const all = await new Promise((done) =>
      lookup('x.example', { all: true }, (err, addresses) => done({ err, addresses })),
    );
    expect(all).toEqual({ err: null, addresses: publicOnly });
    const single = await new Promise((done) =>
      lookup('x.example', { family: 6 }, (err, address, family) => done({ err, address, family })),
    );
    expect(single).toEqual({ err: null, address: '2606:2800:220:1::1', family: 6 });

    const mixed = guardedLookup({
      allowInsecure: false,
      resolve: async () => [...publicOnly, { address: 'fd00:ec2::254', family: 6 }],
    });
    const refused = await new Promise<NodeJS.ErrnoException | null>((done) =>
      mixed('x.example', { all: true }, (err) => done(err)),
    );
    expect(refused).toMatchObject({ code: 'EBLOCKEDADDRESS', classification: 'metadata' });
  });
});
