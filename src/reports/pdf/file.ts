import { hash } from 'node:crypto';

/**
 * A small PDF file writer: numbered objects and streams, the cross-reference table and the
 * trailer (PDF 1.3, ISO 32000-1 §7.5). The renderer writes few objects (fonts, pages, their
 * contents, the catalog and the document information), so it writes them itself instead of
 * going through pdfkit's object tree, whose string conversions cost more than the drawing.
 *
 * Text written here is latin1: one character per byte, so a string's length is its byte count.
 */

const HEADER = '%PDF-1.3\n%\xFF\xFF\xFF\xFF\n';

/** Objects written one after the other, with each one's offset from the start of the block. */
export class PdfObjects {
  private readonly parts: Buffer[] = [];
  private text = '';
  /** Bytes so far, pending text included. */
  size = 0;
  readonly offsets: Array<[number, number]> = [];

  protected write(text: string): void {
    this.text += text;
    this.size += text.length;
  }

  private writeBytes(bytes: Uint8Array): void {
    this.flushText();
    this.parts.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    this.size += bytes.byteLength;
  }

  private flushText(): void {
    if (this.text === '') return;
    this.parts.push(Buffer.from(this.text, 'latin1'));
    this.text = '';
  }

  /** `body` is the object's value: a dictionary, array, number or string. */
  object(num: number, body: string): void {
    this.offsets.push([num, this.size]);
    this.write(`${num} 0 obj\n${body}\nendobj\n`);
  }

  /** A stream; `dict` holds its entries but /Length, which is added here. */
  stream(num: number, dict: string, data: Uint8Array): void {
    this.offsets.push([num, this.size]);
    this.write(`${num} 0 obj\n<< ${dict} /Length ${data.byteLength} >>\nstream\n`);
    this.writeBytes(data);
    this.write('\nendstream\nendobj\n');
  }

  /** Objects written before, copied with their offsets. */
  append(block: PdfObjects): void {
    for (const [num, at] of block.offsets) this.offsets.push([num, this.size + at]);
    for (const part of block.bytes()) this.writeBytes(part);
  }

  bytes(): Buffer[] {
    this.flushText();
    return this.parts;
  }
}

export interface Trailer {
  root: number;
  info: number;
  /** The file identifier, 16 bytes as hex. */
  id: string;
}

/** A whole file: header, objects numbered 1..n (all of them written), xref and trailer. */
export class PdfFile extends PdfObjects {
  constructor() {
    super();
    this.write(HEADER);
  }

  end(trailer: Trailer): Buffer {
    const at = new Map(this.offsets);
    const count = at.size + 1;
    const xref = this.size;
    let table = `xref\n0 ${count}\n0000000000 65535 f \n`;
    for (let num = 1; num < count; num++) {
      const offset = at.get(num);
      if (offset === undefined) throw new Error(`pdf object ${num} was not written`);
      table += `${String(offset).padStart(10, '0')} 00000 n \n`;
    }
    const id = `<${trailer.id}>`;
    this.write(
      `${table}trailer\n<< /Size ${count} /Root ${trailer.root} 0 R /Info ${trailer.info} 0 R /ID [${id} ${id}] >>\nstartxref\n${xref}\n%%EOF\n`,
    );
    return Buffer.concat(this.bytes(), this.size);
  }
}

/** A number as pdfkit writes it in dictionaries: at most six decimals. */
export function pdfNumber(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
}

const ESCAPED = /[\n\r\t\b\f()\\]/g;
const ESCAPES: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '(': '\\(',
  ')': '\\)',
  '\\': '\\\\',
};

/** A text string (§7.9.2.2): ASCII as is, anything else as UTF-16BE with its byte order mark. */
export function pdfString(text: string): string {
  let bytes = text;
  if (hasNonAscii(text)) {
    bytes = '\xFE\xFF';
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      bytes += String.fromCharCode(unit >> 8, unit & 0xff);
    }
  }
  return `(${bytes.replace(ESCAPED, (c) => ESCAPES[c]!)})`;
}

function hasNonAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return true;
  return false;
}

const two = (n: number) => String(n).padStart(2, '0');

/** A date (§7.9.4), in UTC. */
export function pdfDate(date: Date): string {
  const d = date;
  return `(D:${String(d.getUTCFullYear()).padStart(4, '0')}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z)`;
}

/** A file identifier made from the document information, so the same report gives the same file. */
export function fileId(info: Readonly<Record<string, string | Date>>): string {
  let text = '';
  for (const key in info) {
    const value = info[key]!;
    text += `${text === '' ? '' : '\n'}${key}: ${value instanceof Date ? value.toISOString() : value}`;
  }
  return hash('md5', text, 'hex');
}
