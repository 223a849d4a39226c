import { deflateSync } from 'node:zlib';
import { Content } from './content.js';
import { fileId, PdfFile, pdfDate, pdfNumber, pdfString } from './file.js';
import type { Face } from './fonts.js';
import { FONT_IDS, FONT_OBJECTS, prepareFonts, SubsetFont } from './subset.js';

/**
 * One pdf document: its pages' drawing (`content`), the two embedded faces, and the file they
 * make. The objects have fixed numbers (catalog, page tree, information, shared resources, the
 * fonts, then each page and its content), so the font objects of a document that drew seed
 * glyphs only are the same bytes in every document and are copied in whole.
 */

const CATALOG = 1;
const PAGES = 2;
const INFO = 3;
const RESOURCES = 4;
const FONT_FIRST: Readonly<Record<Face, number>> = { regular: 5, bold: 5 + FONT_OBJECTS };
const FIRST_PAGE = 5 + 2 * FONT_OBJECTS;

/**
 * Page contents are compressed at zlib level 1: the largest part of each document's work after
 * drawing. Higher levels make the file a few percent smaller for twice the time or more
 * (bench/reports.mjs).
 */
const CONTENT_LEVEL = 1;
/**
 * A 16 KiB window: a page's content is about that size, so matches are found as with the default
 * 32 KiB, and zlib sets up (and zeroes) half the memory for each page.
 */
const CONTENT_WINDOW = 14;

export interface DocumentInfo {
  Title: string;
  Author: string;
  Subject: string;
  Creator: string;
  Producer: string;
  CreationDate: Date;
  ModDate: Date;
}

export class PdfDocument {
  readonly content: Content;
  private readonly fonts: Readonly<Record<Face, SubsetFont>>;

  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {
    this.fonts = { regular: new SubsetFont('regular'), bold: new SubsetFont('bold') };
    this.content = new Content(this.fonts, height);
    this.content.newPage();
  }

  /** The file: `info` as its document information, `lang` as its language. */
  end(info: DocumentInfo, lang: string): Buffer {
    const file = new PdfFile();
    file.append(this.fonts.regular.objects(FONT_FIRST.regular));
    file.append(this.fonts.bold.objects(FONT_FIRST.bold));
    const box = `[0 0 ${pdfNumber(this.width)} ${pdfNumber(this.height)}]`;
    const kids: string[] = [];
    this.content.finish((ops, i) => {
      const page = FIRST_PAGE + 2 * i;
      kids.push(`${page} 0 R`);
      file.object(
        page,
        `<< /Type /Page /Parent ${PAGES} 0 R /MediaBox ${box} /Contents ${page + 1} 0 R /Resources ${RESOURCES} 0 R >>`,
      );
      file.stream(
        page + 1,
        '/Filter /FlateDecode',
        deflateSync(ops, { level: CONTENT_LEVEL, windowBits: CONTENT_WINDOW }),
      );
    });
    file.object(PAGES, `<< /Type /Pages /Count ${kids.length} /Kids [${kids.join(' ')}] >>`);
    file.object(
      RESOURCES,
      `<< /ProcSet [/PDF /Text] /Font << /${FONT_IDS.regular} ${FONT_FIRST.regular} 0 R /${FONT_IDS.bold} ${FONT_FIRST.bold} 0 R >> >>`,
    );
    file.object(
      CATALOG,
      `<< /Type /Catalog /Pages ${PAGES} 0 R /Lang ${pdfString(lang)} /ViewerPreferences << /DisplayDocTitle true >> >>`,
    );
    const entries = Object.entries(info).map(
      ([key, value]) => `/${key} ${value instanceof Date ? pdfDate(value) : pdfString(value)}`,
    );
    file.object(INFO, `<< ${entries.join(' ')} >>`);
    return file.end({ root: CATALOG, info: INFO, id: fileId({ ...info }) });
  }
}

/** Builds what every document shares (the seed's font objects) ahead of the first report. */
export function prepareDocuments(): void {
  prepareFonts(FONT_FIRST);
}
