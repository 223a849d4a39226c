/**
 * A growable byte buffer for content streams, written without building strings: operators as
 * latin1 text, cached operands as bytes, numbers digit by digit. Buffers are pooled: a page's
 * buffer is reused by a later document once the page is compressed.
 */
export class ByteSink {
  buf: Buffer;
  length = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** Latin1 text (each character one byte). */
  text(s: string): void {
    this.room(s.length);
    const { buf } = this;
    let at = this.length;
    for (let i = 0; i < s.length; i++) buf[at++] = s.charCodeAt(i);
    this.length = at;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  /** A coordinate or size with at most two decimals (1/7200 inch), trailing zeros dropped. */
  num(n: number): void {
    this.hundredths(Math.round(n * 100));
  }

  /** An integer number of hundredths as a decimal (passed as an integer: no number boxing). */
  hundredths(hundredths: number): void {
    // Sign, up to 16 digits (the integers a double holds exactly), point, two decimals.
    this.room(24);
    const { buf } = this;
    let at = this.length;
    let abs = hundredths;
    if (hundredths < 0) {
      buf[at++] = 0x2d;
      abs = -hundredths;
    }
    const frac = abs % 100;
    const whole = (abs - frac) / 100;
    // Page coordinates have at most three digits before the point.
    if (whole < 10) buf[at++] = 0x30 + whole;
    else if (whole < 100) {
      buf[at++] = 0x30 + ((whole / 10) | 0);
      buf[at++] = 0x30 + (whole % 10);
    } else if (whole < 1000) {
      buf[at++] = 0x30 + ((whole / 100) | 0);
      buf[at++] = 0x30 + (((whole / 10) | 0) % 10);
      buf[at++] = 0x30 + (whole % 10);
    } else {
      const digits = String(whole);
      for (let i = 0; i < digits.length; i++) buf[at++] = digits.charCodeAt(i);
    }
    if (frac !== 0) {
      buf[at++] = 0x2e;
      buf[at++] = 0x30 + ((frac / 10) | 0);
      if (frac % 10 !== 0) buf[at++] = 0x30 + (frac % 10);
    }
    this.length = at;
  }

  /** Another sink's bytes. */
  append(other: ByteSink): void {
    const n = other.length;
    this.room(n);
    // A loop: the bytes are few, and Buffer#copy of a part allocates a view of it.
    const from = other.buf;
    const { buf } = this;
    const at = this.length;
    for (let i = 0; i < n; i++) buf[at + i] = from[i]!;
    this.length = at + n;
  }

  /** The bytes written, without the final byte when it is `drop` (a trailing separator). */
  view(drop: number): Buffer {
    const end = this.length > 0 && this.buf[this.length - 1] === drop ? this.length - 1 : this.length;
    return this.buf.subarray(0, end);
  }
}

const pool: ByteSink[] = [];
const POOLED = 16;
const PAGE_BYTES = 32 * 1024;

export function takeSink(): ByteSink {
  const sink = pool.pop() ?? new ByteSink(PAGE_BYTES);
  sink.length = 0;
  return sink;
}

/** Gives a buffer back once its bytes are no longer needed (compressed, copied). */
export function returnSink(sink: ByteSink): void {
  if (pool.length < POOLED) pool.push(sink);
}
