/** Where a document holds a generated section: the comment lines that open and close it. */
export interface SectionMarkers {
  begin: string;
  end: string;
}

/**
 * `text` with what stands between its markers replaced by `content`, the markers kept on lines of their own; throws
 * naming `where` when a marker is missing or out of order.
 */
export function replaceSection(text: string, markers: SectionMarkers, content: string, where: string): string {
  const begin = text.indexOf(markers.begin);
  const end = text.indexOf(markers.end);
  if (begin === -1 || end < begin)
    throw new Error(`${where} has no generated section (${markers.begin} … ${markers.end})`);
  return `${text.slice(0, begin + markers.begin.length)}\n${content}\n${text.slice(end)}`;
}
