/** Content negotiation of response compression: which of br and gzip a client accepts, by `Accept-Encoding`. */
import { qualityValues } from './qualityValues.js';

export type Encoding = 'br' | 'gzip';

/**
 * The encoding to answer in: the one of `br` and `gzip` with the highest weight in `Accept-Encoding`
 * (`br` on a tie), none when neither is accepted (`q=0` refuses one; `*` stands for any not named).
 */
export function negotiateEncoding(accept: string | null | undefined): Encoding | undefined {
  if (!accept) return undefined;
  const weights: Record<string, number> = {};
  for (const { value, quality } of qualityValues(accept)) weights[value] = quality;
  const weight = (name: Encoding) => weights[name] ?? weights['*'] ?? 0;
  const br = weight('br');
  const gzip = weight('gzip');
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? 'br' : 'gzip';
}
