/**
 * PDF export of change request content: short-lived signed print URLs (they are handed to
 * browsers, so they work without the Authorization header) and the rendering itself (pdf-lib).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

/** How long a print URL works (the official description: 1 hour). */
export const PDF_URL_TTL_MS = 60 * 60 * 1000;

/** What a print URL grants: one revision of one change request, optionally some pages of it. */
export interface PdfGrant {
  spaceId: string;
  changeRequestId: string;
  revisionId: string;
  /** Page ids to print; all pages when absent. */
  pages?: string[];
  /** Expiry, in ms since the epoch. */
  expires: number;
}

/** Per process: print URLs do not outlive the server that issued them. */
const secret = randomBytes(32);

const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

export function signPdfGrant(grant: PdfGrant): string {
  const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
  return `${payload}.${sign(payload)}`;
}

/** The grant of a token, or a reason why it is not valid (bad signature, malformed, expired). */
export function verifyPdfGrant(token: string, nowMs: number): PdfGrant | { invalid: string } {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length) return { invalid: 'is malformed' };
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { invalid: 'has a bad signature' };
  const grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as PdfGrant;
  if (grant.expires < nowMs) return { invalid: 'has expired' };
  return grant;
}

export interface PdfContent {
  title: string;
  subtitle: string;
  pages: Array<{ title: string; markdown: string }>;
}

const PAGE = { width: 595.28, height: 841.89, margin: 56 };
const TEXT_SIZE = 11;
const LINE = 15;

/** The standard fonts encode WinAnsi only: other characters print as `?`. */
const printable = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff]/gu, '?');

/** Words of `text` wrapped to lines no wider than `width`. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of printable(text).split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (!line || font.widthOfTextAtSize(next, size) <= width) line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines;
}

/** Writes lines top to bottom, starting a new PDF page when one is full. */
class Writer {
  private page!: PDFPage;
  private y = 0;
  constructor(
    private readonly doc: PDFDocument,
    private readonly fonts: { regular: PDFFont; bold: PDFFont },
  ) {}

  newPage() {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - PAGE.margin;
  }

  text(text: string, options: { size?: number; bold?: boolean; gap?: number } = {}) {
    const size = options.size ?? TEXT_SIZE;
    const font = options.bold ? this.fonts.bold : this.fonts.regular;
    for (const line of wrap(text, font, size, PAGE.width - 2 * PAGE.margin)) {
      if (this.y - size < PAGE.margin) this.newPage();
      this.y -= size;
      this.page.drawText(line, { x: PAGE.margin, y: this.y, size, font });
      this.y -= LINE - size + 4;
    }
    this.y -= options.gap ?? 0;
  }
}

const HEADING_SIZES = [20, 16, 13];

/** A title page, then each page's title and its markdown, block by block. */
export async function renderPdf(content: PdfContent): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(printable(content.title));
  const fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  const out = new Writer(doc, fonts);
  out.newPage();
  out.text(content.title, { size: 26, bold: true, gap: 12 });
  out.text(content.subtitle);
  for (const page of content.pages) {
    out.newPage();
    out.text(page.title, { size: 22, bold: true, gap: 10 });
    for (const block of page.markdown
      .split(/\n\s*\n/)
      .map((b) => b.trim())
      .filter(Boolean)) {
      const heading = /^(#{1,3})\s+(.*)$/s.exec(block);
      if (heading) out.text(heading[2], { size: HEADING_SIZES[heading[1].length - 1], bold: true, gap: 4 });
      else block.split('\n').forEach((line, i, lines) => out.text(line, { gap: i === lines.length - 1 ? 6 : 0 }));
    }
  }
  return doc.save({ useObjectStreams: false });
}
