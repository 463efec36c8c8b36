import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MANAGEMENT_EVENTS } from '../lib/events/management-events.ts';
import type { RouteEventRule } from '../lib/events/route-events.ts';
import { replaceSection } from './generated-section.ts';

/**
 * The table of which management operation publishes which webhook events, in docs/management-api.md, generated from
 * the route → event table the service enforces (`lib/events/management-events.ts`: a route whose libraries state an
 * event its row does not list fails): `npm run docs:events` writes it, and a test fails while the committed section
 * differs from what this renders.
 */
export const ROUTE_EVENTS_DOC = fileURLToPath(new URL('../docs/management-api.md', import.meta.url));
export const REGENERATE_ROUTE_EVENTS = 'npm run docs:events';
const MARKERS = {
  begin: `<!-- route-events:begin (generated from lib/events/management-events.ts by \`${REGENERATE_ROUTE_EVENTS}\`) -->`,
  end: '<!-- route-events:end -->',
};

function cell(rule: RouteEventRule): string {
  return rule.note ? `\`${rule.event}\` (${rule.note})` : `\`${rule.event}\``;
}

/** The generated table: one row per operation, in the table's order. */
function renderRouteEvents(): string {
  const rows = Object.entries(MANAGEMENT_EVENTS).map(
    ([route, rules]) => `| \`${route.replace(' ', ' /api')}\` | ${(rules ?? []).map(cell).join('; ')} |`,
  );
  return ['| Operation | Webhook events it publishes |', '|---|---|', ...rows].join('\n');
}

/** The document with its generated section as the table says it now. */
export function withRouteEvents(document: string): string {
  return replaceSection(document, MARKERS, renderRouteEvents(), ROUTE_EVENTS_DOC);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ROUTE_EVENTS_DOC, withRouteEvents(readFileSync(ROUTE_EVENTS_DOC, 'utf8')));
}
