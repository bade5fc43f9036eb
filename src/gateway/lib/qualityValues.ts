/**
 * A negotiation header's values with their weights (`Accept`, `Accept-Encoding`: RFC 9110,
 * 12.4.2): each value trimmed and in lower case, without its parameters (`params`: the others
 * than `q`, trimmed and in lower case); its quality from `q=`, 1 when not given, 0 when
 * unreadable, within 0 and 1. Read by content-type and content-coding negotiation alike
 * (graphiqlOptions.ts, contentEncoding.ts, useAcceptWeights.ts).
 */
export function qualityValues(header: string): Array<{ value: string; quality: number; params: string[] }> {
  return header.split(',').map((part) => {
    const [value, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return {
      value,
      quality: Number.isFinite(quality) ? Math.min(Math.max(quality, 0), 1) : 0,
      params: params.filter((p) => !p.startsWith('q=')),
    };
  });
}
