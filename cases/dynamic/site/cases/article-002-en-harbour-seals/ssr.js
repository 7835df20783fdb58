// Build-time server rendering: the HTML a server would send before any script runs.
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { App } from './app.js';

export function render() {
  return renderToString(createElement(App));
}
