/**
 * The API reference page (`/api/docs`): Redoc renders the service's OpenAPI document, bundled here so nothing is
 * fetched from elsewhere. Redoc writes its styles into `<style>` elements (styled-components, and the CSS of two
 * libraries it embeds): each one gets this page's CSP nonce, so the page needs no 'unsafe-inline'.
 */
import './api-docs-nonce.ts';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { RedocStandalone } from 'redoc';
import './api-docs.css';

interface DocsConfig {
  specUrl: string;
  consoleUrl: string;
}

const meta = document.querySelector<HTMLMetaElement>('meta[name="app-config"]');
const config = JSON.parse(meta?.content ?? '{}') as DocsConfig;

const back = document.createElement('a');
back.href = config.consoleUrl;
back.className = 'docs-back';
back.textContent = '← Back to the console';
document.body.prepend(back);

createRoot(document.getElementById('app')!).render(
  createElement(RedocStandalone, {
    specUrl: config.specUrl,
    options: {
      // Nothing leaves the page: no fonts from elsewhere, no "try it" calls, no analytics.
      hideDownloadButton: false,
      expandResponses: '200,201',
      jsonSampleExpandLevel: 2,
      theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } },
    },
  }),
);
